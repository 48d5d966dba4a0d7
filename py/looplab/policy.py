"""Policy gates: rules checked before the model sees a task (input) and before a person sees an
answer (output).

A rule is a function of the text that returns True when the text may pass, or a reason (a
string) when it may not. A gate runs its rules in order; the first refusal wins. An output gate
can also redact: rewrite parts of a text that may pass (an e-mail address, a key) before it leaves.

    no_delete = forbid("delete", "drop table", reason="deleting data needs a person")
    input_gate = Gate(no_delete)
    input_gate.check("delete the database")     # Verdict(ok=False, reason='deleting data needs a person', ...)
    output_gate = Gate(redactions={r"\\b\\S+@\\S+\\b": "[e-mail]"})
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

Rule = Callable[[str], "bool | str"]


@dataclass
class Verdict:
    """A gate's answer: may the text pass, why not, and the (possibly redacted) text."""

    ok: bool
    reason: str | None
    text: str


class Gate:
    """Rules that may refuse a text, and redactions applied to a text that passes."""

    def __init__(self, *rules: Rule, redactions: dict[str, str] | None = None):
        self.rules = list(rules)
        self.redactions = [(re.compile(p, re.IGNORECASE), r) for p, r in (redactions or {}).items()]

    def check(self, text) -> Verdict:
        """Run the rules; the first that does not return True refuses. A rule that raises refuses too."""
        text = "" if text is None else str(text)
        for rule in self.rules:
            try:
                result = rule(text)
            except Exception as exc:  # a broken rule fails closed
                return Verdict(False, f"rule {rule_name(rule)} failed: {exc}", text)
            if result is not True:
                reason = result if isinstance(result, str) and result else f"refused by rule {rule_name(rule)}"
                return Verdict(False, reason, text)
        for pattern, replacement in self.redactions:
            text = pattern.sub(replacement, text)
        return Verdict(True, None, text)


def rule_name(rule) -> str:
    """A rule's name for a reason text: its function name, else its type."""
    return getattr(rule, "__name__", type(rule).__name__)


def forbid(*phrases: str, reason: str | None = None) -> Rule:
    """A rule refusing any text that contains one of the phrases (ignoring case)."""
    lowered = [p.lower() for p in phrases]

    def forbidden(text: str):
        found = next((p for p in lowered if p in text.lower()), None)
        return True if found is None else (reason or f"blocked: the text mentions {found!r}")

    forbidden.__name__ = f"forbid({', '.join(phrases)})"
    return forbidden


def max_length(limit: int) -> Rule:
    """A rule refusing texts longer than `limit` characters."""

    def short_enough(text: str):
        return len(text) <= limit or f"blocked: {len(text)} characters is over the limit of {limit}"

    return short_enough
