"""The parts learners build in lessons 22-24, on cases beyond the ones the lessons print.

Each section loads a lesson's solution namespace and tests the part defined there, with
hypothesis properties for its invariants.
"""

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from looplab import Collector, Memory, Toolbox, call, final, scripted
from looplab.mcp import McpServer, in_process
from looplab.trace import listen

ROOT = Path(__file__).resolve().parents[2]
PROPERTY = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None, max_examples=60)


# --- lesson 22: compact -----------------------------------------------------------------------


@st.composite
def histories(draw):
    """A task, then turns: a reply asking for 1-3 tools followed by their results, or a plain reply or user turn."""
    history, n = [{"role": "user", "content": "the task"}], 0
    for kind in draw(st.lists(st.sampled_from(["calls", "text", "user"]), max_size=10)):
        if kind == "calls":
            ids = [f"c{n + i}" for i in range(draw(st.integers(1, 3)))]
            n += len(ids)
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "read_note", "arguments": "{}"}} for i in ids
                    ],
                }
            )
            history += [{"role": "tool", "tool_call_id": i, "content": f"result {i}: 42"} for i in ids]
        else:
            history.append({"role": "assistant" if kind == "text" else "user", "content": f"{kind} {len(history)}"})
    return history


@given(histories(), st.integers(0, 8))
@PROPERTY
def test_compact_keeps_the_task_a_suffix_and_every_pair(solved, history, keep_last):
    ns = solved("22")
    memory = Memory("system")
    memory.history = [dict(m) for m in history]
    memory.remember("pinned", "fact")
    sent = []

    def summariser(messages, tools):
        sent.append(messages)
        assert tools == []
        return final("the summary")

    returned = ns["compact"](memory, summariser, keep_last)
    after = memory.history
    assert ns["pairs_ok"](after)
    assert after[0] == history[0]
    assert "pinned: fact" in memory.messages()[0]["content"]
    if returned is None:
        assert after == history and len(sent) <= 1
        return
    tail = after[2:]
    assert returned == "the summary" and after[1] == {
        "role": "user",
        "content": "Summary of the earlier steps: the summary",
    }
    assert tail == history[len(history) - len(tail) :] and len(tail) >= min(keep_last, len(history) - 1)
    assert not tail or tail[0]["role"] != "tool"
    old = history[1 : len(history) - len(tail)]
    assert (
        len(sent) == 1
        and sent[0][-1]["content"] == ns["transcript"](old)
        and sent[0][0]["content"] == ns["SUMMARY_PROMPT"]
    )


def test_compact_leaves_a_history_alone_when_the_summariser_says_nothing_useful(solved):
    ns = solved("22")
    for reply in (final(""), final("   "), {"role": "assistant", "content": None}):
        memory = Memory("s")
        memory.history = ns["two_calls_history"]()
        assert ns["compact"](memory, lambda m, t, reply=reply: reply, 2) is None
        assert memory.history == ns["two_calls_history"]()


def test_the_compacting_strategy_keeps_answering_right_on_a_longer_run(solved):
    ns = solved("22")
    memory = ns["Compacting"]("s", ns["offline_summariser"], trigger=300, tail=2)
    memory.remember("units", "people")
    result = ns["run_agent"](ns["TASK"], ns["careful_model"](), ns["tools"], memory, max_steps=12)
    assert result["stopped"] == "final" and ns["is_right"](result["answer"])
    assert memory.history[0]["content"] == ns["TASK"] and memory.history[1]["content"].startswith("Summary of")
    assert ns["pairs_ok"](memory.history) and len(memory.history) < 12


# --- lesson 23: add_agent_tool and route ------------------------------------------------------


def test_an_agent_tool_passes_the_question_and_tags_its_events(solved):
    ns = solved("23")
    asked = []

    def model(messages, tools):
        asked.append(messages[-1]["content"])
        return final(f"answer to {messages[-1]['content']}")

    box = Toolbox()
    ns["add_agent_tool"](box, ns["Agent"]("helper", "Help.", Toolbox(), model, 2), "Ask the helper.")
    events = Collector()
    stop = listen(events)
    try:
        said = box.run("ask_helper", '{"question": "what is 2+2?"}')
        missing = box.run("ask_helper", "{}")
    finally:
        stop()
    assert said == "answer to what is 2+2?" and asked == ["what is 2+2?"]
    assert missing.startswith("error:") and "question" in missing
    assert events.events and all(e.get("agent") == "helper" for e in events)
    assert box.schemas()[0]["function"]["name"] == "ask_helper"


@given(st.integers(0, 4), st.integers(1, 5))
@PROPERTY
def test_a_hand_off_loop_always_stops_after_max_handoffs(solved, max_handoffs, agents_in_ring):
    """A ring of agents, each handing to the next for ever: runs = max_handoffs + 1, then step_limit."""
    ns = solved("23")
    names = [f"a{i}" for i in range(agents_in_ring + 1)]
    ring = {}
    for i, name in enumerate(names):
        other = names[(i + 1) % len(names)]
        replies = [
            r for _ in range(max_handoffs + 2) for r in (call(f"transfer_to_{other}", reason="yours"), final("ok"))
        ]
        ring[name] = ns["Agent"](name, f"I am {name}.", Toolbox(), scripted(replies), 3)
    events = Collector()
    result = ns["route"]("go", ring, "a0", max_handoffs=max_handoffs, tracer=events)
    assert result["stopped"] == "step_limit" and result["answer"] is None
    assert len(result["path"]) == max_handoffs + 1 == len(events.of("run_start"))
    assert result["path"] == [names[i % len(names)] for i in range(max_handoffs + 1)]
    assert " → ".join(result["path"]) in result["detail"]
    assert [e["agent"] for e in events.of("run_start")] == result["path"]


def test_route_passes_the_whole_conversation_with_every_call_answered(solved):
    ns = solved("23")
    seen = []
    specialist = ns["Agent"](
        "billing", "Bill.", Toolbox(), lambda messages, tools: seen.append(messages) or final("refunded"), 2
    )
    triage = ns["Agent"](
        "triage", "Sort.", Toolbox(), scripted([call("transfer_to_billing", reason="money"), final("passing on")]), 3
    )
    result = ns["route"]("charged twice", {"triage": triage, "billing": specialist}, "triage")
    assert result == {"answer": "refunded", "stopped": "final", "agent": "billing", "path": ["triage", "billing"]}
    sent = seen[0]
    assert sent[0] == {"role": "system", "content": "Bill."}
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool", "assistant", "user"]
    assert (
        sent[1]["content"] == "charged twice" and sent[-1]["content"] == "triage handed this conversation to you: money"
    )
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]


# --- lesson 24: serve and tools_from_server ---------------------------------------------------


def ask_both(solved, message):
    """The learner's serve and looplab's server on the same message (looplab's after initialize)."""
    ns = solved("24")
    server = McpServer("notes", "1.0", ns["notes"])
    server.handle(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
    )
    theirs = server.handle(json.dumps(message))
    return ns["serve"](json.loads(json.dumps(message)), ns["notes"]), None if theirs is None else json.loads(theirs)


ids = st.one_of(st.integers(-5, 10**6), st.text(max_size=6))
arguments = st.dictionaries(
    st.sampled_from(["note_id", "keyword", "extra"]),
    st.one_of(st.text(max_size=5), st.integers(), st.none()),
    max_size=3,
)


@given(ids, st.sampled_from(["search_notes", "read_note", "delete_everything", ""]), arguments)
@PROPERTY
def test_the_learners_server_answers_tools_call_as_looplabs_does(solved, msg_id, name, args):
    mine, theirs = ask_both(
        solved, {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": name, "arguments": args}}
    )
    assert mine["id"] == theirs["id"] == msg_id and mine["jsonrpc"] == "2.0"
    assert ("result" in mine) == ("result" in theirs)
    if "result" in mine:
        assert mine["result"] == theirs["result"]
    else:
        assert mine["error"]["code"] == theirs["error"]["code"] == -32602


@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=8),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(
            st.sampled_from(["jsonrpc", "id", "method", "params"]),
            st.one_of(
                st.none(),
                st.text(max_size=12),
                st.integers(),
                st.sampled_from(["2.0", "tools/list", "tools/call", "initialize"]),
            ),
            max_size=4,
        ),
    )
)
@PROPERTY
def test_the_learners_server_never_raises_and_never_answers_a_notification(solved, message):
    ns = solved("24")
    answer = ns["serve"](message, ns["notes"])
    if isinstance(message, dict) and "id" not in message:
        assert answer is None
    else:
        assert isinstance(answer, dict) and answer["jsonrpc"] == "2.0" and ("result" in answer) != ("error" in answer)
        if "error" in answer:
            assert answer["error"]["code"] in (-32600, -32601, -32602) and answer["error"]["message"]


@given(st.lists(st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True), min_size=0, max_size=6, unique=True))
@PROPERTY
def test_the_learners_client_registers_every_tool_and_each_calls_its_own(solved, names):
    ns = solved("24")
    box = Toolbox()
    for name in names:
        box.register(
            name,
            f"Say {name}.",
            {"type": "object", "properties": {"x": {"type": "integer"}}},
            lambda name=name, **args: f"{name}:{args.get('x')}",
        )
    client_box = ns["tools_from_server"](in_process(McpServer("s", "1", box)))
    assert client_box.names() == names and client_box.schemas() == box.schemas()
    for i, name in enumerate(names):
        assert client_box.run(name, json.dumps({"x": i})) == f"{name}:{i}"
