"""A check's outcome: the three statuses every part of a lesson run reports, and `Check`.

A check passed, failed, or was not checked (a claim about the lesson's prepared replies, not
evaluated with a live or local model; or a lesson test pytest skipped).
"""

from dataclasses import dataclass

from .. import trace

PASSED, FAILED, NOT_CHECKED = "passed", "failed", "not checked"
STATUSES = (PASSED, FAILED, NOT_CHECKED)
MARKS = {PASSED: "✓", FAILED: "✗", NOT_CHECKED: "–"}


@dataclass
class Check:
    """One check's outcome, as the page shows it: its name, its status and a message.

    `status` is "passed", "failed" or "not checked" (a claim about prepared replies, not evaluated
    with a live or local model; the message says what the model did). `ok` is True only for passed.
    """

    name: str
    ok: bool
    message: str = ""
    status: str = ""

    def __post_init__(self):
        self.message = trace.redact_text(self.message)  # shown on the page and in the terminal
        self.status = self.status or (PASSED if self.ok else FAILED)
        self.ok = self.status == PASSED
