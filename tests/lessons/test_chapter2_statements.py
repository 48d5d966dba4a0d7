"""What lessons 17-24 say is true of what they run: each statement that was once wrong, checked.

Issue 21 found a token total without the tool schemas (17), "nine notes" for six (22), a spec whose
order of steps leaves a list message unanswered and a hint that doubles `error:` (24), and cached
tokens billed at the full price (20). Each test here takes the lesson's solved namespace (conftest's `solved`) and holds
its words against its numbers, so the prose cannot drift from the code again.
"""

import json
import re
from pathlib import Path

from looplab.budget import Budget
from looplab._course.lesson import parse
from looplab.mcp import McpServer, in_process
from looplab.tokens import count_tokens

ROOT = Path(__file__).resolve().parents[2]


def lesson_path(prefix: str) -> Path:
    return next((ROOT / "lessons").glob(f"{prefix}-*.py"))


def prose(prefix: str) -> str:
    """The lesson's markdown, comment marks taken off, lines joined."""
    cells = parse(lesson_path(prefix).read_text(encoding="utf-8"))
    return " ".join(
        " ".join(line.lstrip("# ") for line in c.source.splitlines()) for c in cells if c.kind == "markdown"
    )


def test_17_tokens_sent_counts_the_tool_schemas_of_every_call(solved):
    ns = solved("17")
    run, box = ns["good"], ns["box"]
    schema_tokens = count_tokens(json.dumps(box.schemas()))
    calls = sum(e["type"] == "model_reply" for e in run.events)
    assert calls == 3 and schema_tokens > 100
    # scripted replies carry no usage, so each call's prompt is the estimate: messages + schemas
    assert ns["tokens_sent"](run) == ns["message_tokens_sent"](run) + calls * schema_tokens
    assert ns["tokens_sent"](run) == sum(e["usage"]["prompt"] for e in run.events if e["type"] == "model_reply")


def test_22_the_researcher_reads_six_notes_in_nine_calls_as_the_prose_says(solved):
    ns = solved("22")
    plan = ns["PLAN"]
    read = {args["note_id"] for name, args in plan if name == "read_note"}
    assert len(plan) == 9 and len(read) == 6
    text = prose("22")
    assert "six notes" in text and "nine calls" in text and "nine notes" not in text
    # the offline summariser keeps what the notes strategy keeps: the prose says so
    assert "FINDING" in text and "by construction" in text


def test_24_a_list_message_is_answered_minus_32600_and_the_spec_checks_the_shape_first(solved):
    ns = solved("24")
    answer = ns["serve"]([1, 2], ns["notes"])
    assert answer["error"]["code"] == -32600 and answer["id"] is None
    assert ns["serve"]({"jsonrpc": "2.0", "method": "notifications/initialized"}, ns["notes"]) is None
    spec = prose("24")
    # the steps, in the order the exercise gives them: not an object, then the notification
    assert spec.index("1. a message that is not an object") < spec.index('2. an object with no `"id"`')


def test_24_a_tool_error_reaches_the_model_with_one_error_prefix_and_the_hint_says_so(solved):
    ns = solved("24")
    box = ns["tools_from_server"](in_process(McpServer("notes", "1.0", ns["notes"])))
    said = box.run("read_note", '{"note_id": "n9"}')
    assert said.startswith("error: no note") and said.count("error:") == 1
    hints = " ".join(prose("24").split())
    assert 'raise ToolError(text.removeprefix("error:").strip())' in hints
    assert not re.search(r"raise `?ToolError\(text\)`?, so the model reads", hints)


def test_20_cached_tokens_are_billed_at_the_cached_price_in_the_lessons_example(solved):
    ns = solved("20")
    usages, prices = ns["USAGES"], ns["PRICES"]
    assert sum(u.get("cached", 0) for u in usages) == 7936 and sum(u["prompt"] for u in usages) == 10500
    cached_rate = ns["run_cost"](usages, prices)
    full = sum(
        Budget(price_in=prices["in"], price_out=prices["out"]).cost_of(u["prompt"], u["completion"]) for u in usages
    )
    assert abs(cached_rate - 0.0010398) < 1e-12 and abs(full - 0.001635) < 1e-12
    assert ns["priced"]["usage"]["cost"] == round(cached_rate, 8)
    assert "paid by the token" not in prose("20") and "Seed" not in lesson_path("20").read_text(encoding="utf-8")


def test_no_lesson_of_chapter_2_cites_a_seed_document():
    for prefix in ("17", "18", "19", "20", "21", "22", "23", "24"):
        assert not re.search(r"\bseed \d{3}\b", lesson_path(prefix).read_text(encoding="utf-8"), re.I), prefix
