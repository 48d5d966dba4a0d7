"""A conversation kept in a lesson's namespace: lesson 15's agent, message by message, as the Chat tab has it."""

from pathlib import Path

import pytest
from looplab import trace
from looplab._course import lesson
from looplab._course.conversation import Conversation, judge

FIFTEEN = Path(__file__).resolve().parents[2] / "lessons" / "15-the-whole-thing.py"


@pytest.fixture
def fifteen():
    return lesson.parse(FIFTEEN.read_text(encoding="utf-8"))


@pytest.mark.skipif(
    not FIFTEEN.exists(), reason="the lessons are not copied into Pyodide's file system (tests/pyodide/run.mjs)"
)
def test_lesson_15_remembers_alice_between_messages_and_forgets_her_in_a_new_conversation(fifteen, monkeypatch):
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    talk, events = Conversation(), []
    stop = trace.listen(events.append)
    try:
        assert talk.prepare(fifteen, True, "scripted") == (None, True)
        assert events == []  # the lesson's own runs were quiet
        assert talk.namespace["memory"] == {}  # start= emptied what they left
        first = talk.turn("remember my name is Alice, then add 10 and 5")
        second = talk.turn("what is my name?")
        blocked = talk.turn("delete the database")
        assert "15" in first.reply and first.kind == "answer" and first.stopped == "final"
        assert "Alice" in second.reply and talk.namespace["memory"] == {"name": "Alice"}
        assert blocked.reply.startswith("BLOCKED") and (blocked.kind, blocked.stopped) == ("blocked", "blocked")
        assert talk.prepare(fifteen, True, "scripted") == (None, False)  # nothing changed: the same namespace
        starts = [e for e in events if e["type"] == "run_start"]
        assert [e["task"] for e in starts] == [
            "remember my name is Alice, then add 10 and 5",
            "what is my name?",
            "delete the database",
        ]
        assert [e["run"] for e in starts] == [first.run, second.run, blocked.run] and all(
            e["agent"] == "agent" for e in starts
        )
        assert talk.prepare(fifteen, True, "scripted", fresh=True) == (None, True)
        assert "Alice" not in talk.turn("what is my name?").reply
    finally:
        stop()


def test_a_turn_that_raises_or_is_stopped_is_a_reply_and_the_conversation_goes_on():
    cells = lesson.parse(
        "# %%\nfrom looplab import chat_with\nsaid = []\n"
        "def agent(m):\n    said.append(m)\n    if m == 'boom': raise ValueError('no boom here')\n"
        "    if m == 'stop': raise KeyboardInterrupt\n    return f'{len(said)}: {m}'\n"
        "chat_with(agent, suggestions=['hi', ' '])\n"
    )
    talk = Conversation()
    assert talk.prepare(cells, False, "scripted") == (None, True)
    boom, stopped, hi = talk.turn("boom"), talk.turn("stop"), talk.turn("hi")
    assert (boom.kind, boom.stopped, boom.reply) == ("error", "error", "ValueError: no boom here")
    assert (stopped.kind, stopped.reply) == ("interrupted", "")
    assert hi.reply == "3: hi" and hi.offer == {"name": "agent", "suggestions": ["hi"]}


def test_stop_in_a_run_agent_turn_ends_its_run_in_the_trace_and_the_next_message_works():
    cells = lesson.parse(
        "# %%\nfrom looplab import Memory, Toolbox, call, final, run_agent\nfrom looplab import chat_with\n"
        'box = Toolbox()\n@box.tool\ndef nap() -> str:\n    "Sleep."\n    raise KeyboardInterrupt\n'
        "def brain(messages, tools):\n    last = messages[-1]\n"
        "    return call('nap') if last['content'] == 'wait' and last['role'] == 'user' else final('ok: ' + last['content'])\n"
        "memory = Memory('s')\nchat_with(lambda m: run_agent(m, brain, box, memory), name='napper')\n"
    )
    talk, events = Conversation(), []
    assert talk.prepare(cells, False, "scripted") == (None, True)
    stop = trace.listen(events.append)
    try:
        cut, after = talk.turn("wait"), talk.turn("hello")
    finally:
        stop()
    assert (cut.kind, cut.stopped) == ("interrupted", "error") and after.reply == "ok: hello"
    stops = [e for e in events if e["type"] == "stop"]
    assert [(e["run"], e["stopped"]) for e in stops] == [(cut.run, "error"), (after.run, "final")]
    assert "Stop was pressed" in stops[0]["detail"] and "agent" not in stops[0]  # run_agent was given no name


def test_a_lesson_that_fails_or_offers_nothing_says_why():
    talk = Conversation()
    why, _ = talk.prepare(lesson.parse("# %%\nx = 1\n"), False, "scripted")
    assert "offers no agent" in why and "chat_with" in why and talk.offer is None
    why, _ = talk.prepare(lesson.parse("# %%\nraise NameError('agnet')\n"), False, "scripted")
    assert "did not run to the end" in why and "NameError: agnet" in why


@pytest.mark.parametrize(
    "result, blocks, verdict",
    [
        ({"stopped": "final", "answer": "x"}, [], ("answer", "final")),
        ({"stopped": "blocked"}, [{"gate": "input"}], ("blocked", "blocked")),
        ({"stopped": "blocked"}, [{"gate": "output"}], ("redacted", "blocked")),
        ({"stopped": "step_limit"}, [], ("stopped", "step_limit")),
        ("REDACTED: a password", [], ("redacted", "final")),
        ("Max turns reached", [], ("stopped", "step_limit")),
        ("ERROR: 401", [], ("error", "error")),
    ],
)
def test_judge_says_how_a_turn_ended(result, blocks, verdict):
    reply = result if isinstance(result, str) else ""
    assert judge(result, reply, blocks) == verdict


OFFERING = (
    sorted(p for p in FIFTEEN.parent.glob("*.py") if "chat_with(" in p.read_text(encoding="utf-8"))
    if FIFTEEN.exists()
    else []
)


@pytest.mark.skipif(
    not OFFERING, reason="the lessons are not copied into Pyodide's file system (tests/pyodide/run.mjs)"
)
@pytest.mark.parametrize("path", OFFERING, ids=[p.stem for p in OFFERING])
def test_every_lesson_that_offers_a_chat_answers_each_of_its_suggestions(path, monkeypatch):
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    talk = Conversation()
    assert talk.prepare(lesson.parse(path.read_text(encoding="utf-8")), True, "scripted") == (None, True)
    assert talk.offer.suggestions, f"{path.name} offers a chat without suggestions for the scripted model"
    for suggestion in talk.offer.suggestions:
        turn = talk.turn(suggestion)
        assert turn.reply.strip() and turn.kind in ("answer", "blocked", "redacted", "stopped"), (suggestion, turn)
        assert turn.stopped in ("final", "blocked", "needs_person"), (suggestion, turn)  # never an error
