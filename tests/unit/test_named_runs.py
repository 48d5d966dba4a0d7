"""Named runs: `run_agent(..., name=...)` tags every event with `agent`, so agents that call each
other (an agent used as a tool) leave one trace whose events can still be told apart."""

from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import Collector, Memory, Toolbox, call, final, run_agent, scripted
from looplab.trace import describe, listen


def researcher_tool(box: Toolbox, replies: list, max_steps: int, events: Collector) -> None:
    """Register `research` on `box`: a nested run of a researcher agent with its own tools."""
    notes = Toolbox()
    notes.register(
        "read_note",
        "Read a note.",
        {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
        lambda note_id: f"note {note_id}: 1240",
    )

    def research(question: str) -> str:
        result = run_agent(
            question,
            scripted(list(replies)),
            notes,
            Memory("Researcher."),
            max_steps=max_steps,
            tracer=events,
            name="researcher",
        )
        return result["answer"] if result["stopped"] == "final" else f"error: researcher stopped {result['stopped']}"

    box.register(
        "research",
        "Ask the researcher.",
        {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
        research,
    )


def test_every_event_of_a_named_run_carries_its_name_and_nested_runs_stay_apart():
    events = Collector()
    box = Toolbox()
    researcher_tool(box, [call("read_note", note_id="n1"), final("Eastside: 1240")], 4, events)
    writer = scripted([call("research", question="March visits?"), final("Eastside had 1240 visits.")])
    result = run_agent("Write one line.", writer, box, Memory("Writer."), tracer=events, name="writer")
    assert result["stopped"] == "final" and result["answer"] == "Eastside had 1240 visits."
    agents = [e["agent"] for e in events]
    assert set(agents) == {"writer", "researcher"}
    # the researcher's whole run sits between the writer's tool_call and its tool_result
    call_at = next(i for i, e in enumerate(events) if e["type"] == "tool_call" and e["agent"] == "writer")
    result_at = next(i for i, e in enumerate(events) if e["type"] == "tool_result" and e["agent"] == "writer")
    inner = events.events[call_at + 1 : result_at]
    assert [e["type"] for e in inner][0] == "run_start" and inner[-1]["type"] == "stop"
    assert all(e["agent"] == "researcher" for e in inner)
    assert events.events[result_at]["result"] == "Eastside: 1240"
    assert describe(inner[0]).startswith("[researcher] run_start")
    assert describe(events.events[0]).startswith("[writer] run_start")


def test_an_unnamed_run_has_no_agent_field_and_its_lines_are_unchanged():
    events = Collector()
    run_agent("hi", scripted([final("hello")]), Toolbox(), Memory("s"), tracer=events)
    assert events.types() == ["run_start", "model_call", "model_reply", "stop"]
    assert all("agent" not in e for e in events)
    assert describe(events.of("stop")[0]) == "stop final after 1 steps"


def test_a_nested_run_that_hits_its_own_step_limit_does_not_stop_the_outer_run():
    events = Collector()
    box = Toolbox()
    researcher_tool(box, [call("read_note", note_id=f"n{i}") for i in range(5)], 2, events)
    writer = scripted([call("research", question="?"), final("I could not find it.")])
    result = run_agent("Write.", writer, box, Memory("Writer."), max_steps=3, tracer=events, name="writer")
    stops = {e["agent"]: e for e in events.of("stop")}
    assert stops["researcher"]["stopped"] == "step_limit" and stops["researcher"]["steps"] == 2
    assert stops["writer"]["stopped"] == "final" and result["steps"] == 2
    assert events.of("tool_result")[-1]["result"] == "error: researcher stopped step_limit"


def test_listeners_see_the_agent_too_and_a_name_shaped_like_a_key_is_redacted():
    seen = []
    stop = listen(seen.append)
    try:
        run_agent("hi", scripted([final("ok")]), Toolbox(), Memory("s"), name="sk-abcdefghijklmnopqrstuvwx")
    finally:
        stop()
    assert seen and all(e["agent"] == "[redacted]" for e in seen)
    assert "sk-abc" not in repr(seen)


@given(st.text(min_size=1, max_size=12).filter(lambda s: s.strip() and "sk-" not in s), st.integers(1, 4))
@settings(deadline=None)
def test_every_event_carries_the_given_name(name, steps):
    events = Collector()
    box = Toolbox()
    box.register("ping", "Ping.", None, lambda: "pong")
    run_agent(
        "t",
        scripted([call("ping") for _ in range(steps)] + [final("done")]),
        box,
        Memory("s"),
        max_steps=3,
        tracer=events,
        name=name,
    )
    assert len(events) >= 4
    assert all(e["agent"] == name for e in events)
