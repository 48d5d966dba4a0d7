"""Policy gates, the task queue and the trace (events, printer, redaction)."""

import io

from looplab import Collector, Gate, Memory, TaskQueue, Toolbox, call, final, forbid, printer, run_agent, scripted
from looplab.policy import max_length
from looplab.trace import EVENT_TYPES, describe, redact, redact_text


def test_gate_first_refusal_wins_and_rules_fail_closed():
    gate = Gate(lambda t: "delete" not in t or "blocked: no delete", max_length(10))
    assert gate.check("hello").ok and gate.check("hello").text == "hello"
    assert gate.check("delete it all now").reason == "blocked: no delete"
    assert gate.check("x" * 11).reason == "blocked: 11 characters is over the limit of 10"
    broken = Gate(lambda t: t.missing)
    verdict = broken.check("x")
    assert not verdict.ok and "failed" in verdict.reason


def test_forbid_ignores_case_and_false_means_generic_reason():
    assert forbid("drop table").__call__("DROP TABLE users") == "blocked: the text mentions 'drop table'"
    assert Gate(lambda t: False).check("x").reason.startswith("refused by rule")


def test_redactions_apply_to_passing_text():
    gate = Gate(redactions={r"\b\d{4}-\d{4}\b": "[card]"})
    assert gate.check("pay 1234-5678 now").text == "pay [card] now"


def test_task_queue_fifo_and_schedule_tool():
    queue = TaskQueue(max_tasks=5)
    box = Toolbox()
    queue.add_tool(box)
    assert box.run("schedule", '{"task": "second"}').startswith("scheduled: second")
    queue.pending.appendleft("first")
    order = []
    queue.run(lambda task: order.append(task) or task.upper())
    assert order == ["first", "second"] and queue.results[1] == {"task": "second", "result": "SECOND"}
    assert queue.stopped == "empty" and box.run("schedule", '{"task": " "}').startswith("error:")


def test_task_queue_cap_stops_an_agent_that_keeps_scheduling():
    queue = TaskQueue(max_tasks=3)
    queue.schedule("task 0")
    queue.run(lambda task: queue.schedule(f"after {task}"))
    assert len(queue.results) == 3 and queue.stopped == "task_limit" and len(queue.pending) == 1


def test_task_queue_through_real_agent_runs_and_failures_kept():
    queue = TaskQueue()
    box = Toolbox()
    queue.add_tool(box)
    model = scripted([call("schedule", task="check April"), final("March done"), final("April done")])
    queue.schedule("check March")
    queue.run(lambda task: run_agent(task, model, box, Memory("s"))["answer"])
    assert [r["result"] for r in queue.results] == ["March done", "April done"]
    queue.schedule("boom")
    queue.run(lambda task: 1 / 0)
    assert (
        queue.results[-1]["result"]["stopped"] == "error"
        and "ZeroDivisionError" in queue.results[-1]["result"]["detail"]
    )


def test_redaction_of_configured_key_and_key_shapes(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "plainsecretvalue")
    event = {"detail": "failed with plainsecretvalue", "more": ["Bearer abcdefghijk123", "sk-proj-ABCDEFGHIJKLMNOP"]}
    clean = redact(event)
    assert "plainsecretvalue" not in repr(clean) and "abcdefghijk" not in repr(clean)
    assert clean["more"][1] == "[redacted]" and event["detail"].endswith("plainsecretvalue")
    assert redact_text("nothing here", []) == "nothing here"


def test_printer_prints_one_line_per_event():
    out = io.StringIO()
    box = Toolbox()
    box.register(
        "up",
        "Uppercase.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        lambda text: text.upper(),
    )
    run_agent("shout hi", scripted([call("up", text="hi"), final("HI")]), box, Memory("s"), tracer=printer(out))
    lines = out.getvalue().splitlines()
    assert len(lines) == 8 and "tool_call up" in lines[3] and "tool_result up ok: HI" in lines[4]
    assert lines[-1].endswith("stop final after 2 steps")


def test_describe_every_event_type():
    events = Collector()
    run_agent("x", scripted([final("y")]), Toolbox(), Memory("s"), tracer=events)
    assert set(events.types()) <= set(EVENT_TYPES) and all(e["type"] in describe(e) for e in events)
    assert all(kind in describe({"type": kind}) for kind in EVENT_TYPES)
    assert describe({"type": "policy_block", "gate": "input", "reason": "no"}) == "policy_block (input) no"
    assert (
        describe({"type": "approval_needed", "tool": "wipe", "approved": False, "step": 2})
        == "step 2 approval_needed wipe -> refused"
    )
    assert (
        describe({"type": "tool_result", "tool": "f", "ok": False, "result": "error: bad"})
        == "tool_result f error: bad"
    )
    assert describe({"type": "tool_result", "tool": "f", "ok": False, "result": "odd"}) == "tool_result f error: odd"


def test_a_failing_task_detail_never_holds_the_key(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "sk-task-SECRET-abcdefghijklmnop")
    queue = TaskQueue()
    queue.schedule("leak")

    def leaky(task):
        raise RuntimeError("bad key sk-task-SECRET-abcdefghijklmnop")

    queue.run(leaky)
    detail = queue.results[0]["result"]["detail"]
    assert "SECRET" not in detail and detail.startswith("RuntimeError: bad key [redacted]")
