"""The Chat tab's rules (web/src/page/chat/turns.js, run in Node.js): a message is a turn; one turn
at a time; a message sent while the chat is made ready waits and then goes; a refused message comes
back to the input; a turn's reply says how it ended; New conversation starts afresh."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from conftest import node_module

turns_js = node_module("web/src/page/chat/turns.js")
READY = {
    "outcome": "checked",
    "error": None,
    "chat": {"kind": "ready", "offer": {"name": "helper", "suggestions": ["hi"]}, "fresh": True},
}


def answered(reply="Hello.", kind="answer", fresh=False) -> dict:
    turn = {
        "reply": reply,
        "kind": kind,
        "stopped": "final",
        "run": 3,
        "fresh": fresh,
        "offer": {"name": "helper", "suggestions": []},
    }
    return {"outcome": "checked", "error": None, "chat": turn}


class Tab:
    """The Chat tab as chat.js drives it: events in, effects out."""

    def __init__(self, js, turns=()):
        self.js = js
        self.state = js.call("initial")
        self.effects: list[dict] = []
        self.send("show", slug="alpha", turns=list(turns))

    def send(self, type_: str, **fields) -> list[dict]:
        step = self.js.call("next", self.state, {"type": type_, **fields})
        self.state = step["state"]
        self.effects += step["effects"]
        return step["effects"]

    def sent(self, effects) -> list[dict]:
        return [e for e in effects if e["type"] == "send"]


def test_a_message_is_a_turn_and_its_reply_the_next(turns_js):
    tab = Tab(turns_js)
    effects = tab.send("submit", text="  What is 2 + 3?  ")
    assert [e["type"] for e in effects] == ["input", "save", "asked", "send"]
    assert effects[0]["text"] == "" and effects[3]["message"] == "What is 2 + 3?" and effects[3]["fresh"] is False
    assert tab.state["turns"] == [{"role": "user", "text": "What is 2 + 3?"}]
    events = [
        {"type": "tool_call", "run": 3, "call_id": "c1", "tool": "add", "arguments": '{"a": 2, "b": 3}'},
        {"type": "tool_result", "run": 3, "call_id": "c1", "tool": "add", "result": "5", "ok": True},
        {"type": "policy_block", "run": 3, "reason": "no swearing"},
    ]
    effects = tab.send("ended", result=answered("5."), here=True, heard={"events": events, "printed": " adding\n"})
    reply = next(e["reply"] for e in effects if e["type"] == "replied")
    assert reply["role"] == "assistant" and reply["text"] == "5." and reply["printed"] == "adding"
    assert reply["tools"] == [{"tool": "add", "arguments": '{"a": 2, "b": 3}', "result": "5", "ok": True}]
    assert (
        reply["blocks"] == ["no swearing"] and tab.state["pending"] is None and tab.state["offer"]["name"] == "helper"
    )
    assert [t["role"] for t in tab.state["turns"]] == ["user", "assistant"]


def test_one_turn_at_a_time_and_a_message_during_the_making_ready_waits(turns_js):
    tab = Tab(turns_js)
    ready = tab.send("opened", scripted=True)
    assert tab.sent(ready) == [{"type": "send", "id": 1, "message": None, "fresh": False}]
    assert tab.send("opened", scripted=True) == []  # already being made ready
    assert [e["type"] for e in tab.send("submit", text="hi")] == ["input"]  # it waits
    assert tab.state["queued"] == "hi" and tab.state["turns"] == []
    effects = tab.send("ended", result=READY, here=True)
    assert next(e for e in effects if e["type"] == "replied")["reply"] == {"role": "ready", "text": "helper"}
    assert tab.sent(effects) == [] and tab.state["turns"] == [] and tab.state["queued"] is None
    later = next(e for e in effects if e["type"] == "later")  # in a task of its own: after the session heard the end
    assert later["event"] == {"type": "queued", "text": "hi", "slug": "alpha"}
    assert tab.send("queued", text="hi", slug="beta") == []  # (had another lesson been opened meanwhile)
    effects = tab.send("queued", text="hi", slug="alpha")
    assert tab.sent(effects) == [{"type": "send", "id": 2, "message": "hi", "fresh": False}]
    assert tab.send("submit", text="another") == [] and tab.state["turns"] == [{"role": "user", "text": "hi"}]
    assert tab.send("restart") == [] and tab.state["turns"] != []  # a turn in flight: Stop it first
    assert tab.send("opened", scripted=False) == []


def test_a_refused_message_comes_back_and_only_its_own_refusal_counts(turns_js):
    tab = Tab(turns_js, turns=[{"role": "user", "text": "old"}])
    tab.send("submit", text="new")
    assert tab.send("refused", id=99, error="late") == []  # another request's answer
    effects = tab.send("refused", id=1, error="The model is not ready.")
    assert [e["type"] for e in effects] == ["save", "input", "draw", "note"]
    assert effects[1]["text"] == "new" and effects[3]["text"] == "The model is not ready."
    assert tab.state["turns"] == [{"role": "user", "text": "old"}] and tab.state["pending"] is None


def test_a_stopped_turn_a_crash_and_a_fresh_namespace_each_say_so(turns_js):
    tab = Tab(turns_js)
    tab.send("submit", text="one")
    tab.send("ended", result={"outcome": "interrupted", "error": None}, here=True, heard={"events": [], "printed": ""})
    assert tab.state["turns"][-1]["kind"] == "interrupted" and tab.state["turns"][-1]["text"] == ""
    tab.send("submit", text="two")
    tab.send("ended", result={"outcome": "crashed", "message": "Python crashed."}, here=True)
    assert tab.state["turns"][-1] == {"role": "note", "text": "Python crashed."}
    tab.send("submit", text="three")
    tab.send("ended", result=answered("again", fresh=True), here=True)
    roles = [t["role"] for t in tab.state["turns"]]
    assert roles[-3:] == ["note", "user", "assistant"] and "ran again" in tab.state["turns"][-3]["text"]
    # New conversation: empty, and the next message starts afresh
    assert [e["type"] for e in tab.send("restart")] == ["save", "draw", "focus"] and tab.state["turns"] == []
    assert tab.sent(tab.send("submit", text="hello"))[0]["fresh"] is True
    tab.send("ended", result=answered(fresh=True), here=True)
    assert tab.state["fresh"] is False
    # a turn that ended while another lesson was on screen is not drawn
    tab.send("submit", text="x")
    effects = tab.send("ended", result=answered(), here=False)
    assert effects == [{"type": "replied", "reply": None}] and tab.state["turns"][-1] == {"role": "user", "text": "x"}


ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("submit"), st.sampled_from(["a", "b", " ", ""])),
        st.tuples(st.just("opened"), st.booleans()),
        st.tuples(st.just("ended"), st.sampled_from(["checked", "interrupted", "crashed"])),
        st.tuples(st.just("refused"), st.integers(0, 4)),
        st.tuples(st.just("restart"), st.none()),
        st.tuples(st.just("later"), st.none()),
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None)
@given(ACTIONS)
def test_whatever_happens_at_most_one_request_is_in_flight(turns_js, actions):
    tab = Tab(turns_js)
    flying, later = None, []
    for action, value in actions:
        if action == "later":  # the page's next task: what waited goes
            if not later:
                continue
            effects = tab.send(**{"type_": later[0]["type"], **{k: v for k, v in later.pop(0).items() if k != "type"}})
        elif action == "submit":
            effects = tab.send("submit", text=value)
        elif action == "opened":
            effects = tab.send("opened", scripted=value)
        elif action == "ended":
            effects = tab.send(
                "ended", result=answered() if value == "checked" else {"outcome": value, "message": "m"}, here=True
            )
            flying = None
        elif action == "refused":
            effects = tab.send("refused", id=value, error="no")
            if flying == value:
                flying = None
        else:
            effects = tab.send("restart")
        later += [e["event"] for e in effects if e["type"] == "later"]
        for sent in tab.sent(effects):
            assert flying is None, "a second request while one is in flight"
            flying = sent["id"]
        pending = tab.state["pending"]
        assert (pending is None) == (flying is None) and (pending is None or pending["id"] == flying)
        users = [t for t in tab.state["turns"] if t["role"] == "user"]
        assert all(t["text"].strip() for t in users)


def test_leaving_the_lesson_keeps_its_turn_cut_short_there(turns_js):
    tab = Tab(turns_js)
    tab.send("submit", text="look it up")
    heard = {
        "events": [{"type": "tool_call", "run": 4, "call_id": "c1", "tool": "search", "arguments": "{}"}],
        "printed": "x\n",
    }
    effects = tab.send("show", slug="beta", turns=[{"role": "user", "text": "beta's"}], heard=heard)
    kept = next(e for e in effects if e["type"] == "keep")
    assert kept["slug"] == "alpha" and [t["role"] for t in kept["turns"]] == ["user", "assistant"]
    cut = kept["turns"][-1]
    assert cut["kind"] == "interrupted" and cut["why"] == "left" and cut["printed"] == "x"
    assert cut["tools"][0]["tool"] == "search" and cut["tools"][0]["result"] is None
    assert (
        tab.state["slug"] == "beta"
        and tab.state["pending"] is None
        and tab.state["turns"] == [{"role": "user", "text": "beta's"}]
    )
    # the session says the stopped turn ended, elsewhere: nothing changes here
    after = tab.send("ended", result={"outcome": "interrupted", "error": "KeyboardInterrupt"}, here=False)
    assert after == [{"type": "replied", "reply": None}] and tab.state["turns"] == [{"role": "user", "text": "beta's"}]


def test_leaving_while_the_chat_is_made_ready_keeps_nothing(turns_js):
    tab = Tab(turns_js)
    tab.send("opened", scripted=True)
    effects = tab.send("show", slug="beta", turns=[])
    assert [e["type"] for e in effects] == ["draw"] and tab.state["pending"] is None


def test_a_turn_the_runner_refused_comes_back_to_the_input(turns_js):
    tab = Tab(turns_js, turns=[{"role": "user", "text": "earlier"}, {"role": "assistant", "text": "yes"}])
    tab.send("submit", text="again")
    result = {"outcome": "refused", "ok": False, "error": "Python is starting (again)", "checks": []}
    effects = tab.send("ended", result=result, here=True)
    assert {"type": "input", "text": "again"} in effects
    assert next(e for e in effects if e["type"] == "note")["text"] == "Python is starting (again), then send it again."
    assert next(e for e in effects if e["type"] == "replied")["reply"] == {"role": "note", "text": result["error"]}
    assert [t["text"] for t in tab.state["turns"]] == ["earlier", "yes"] and tab.state["pending"] is None


def test_a_turn_ended_by_new_settings_says_so(turns_js):
    tab = Tab(turns_js)
    tab.send("submit", text="hi")
    effects = tab.send("ended", result={"outcome": "restarted", "renewed": True}, here=True)
    reply = next(e for e in effects if e["type"] == "replied")["reply"]
    assert reply["kind"] == "interrupted" and reply["why"] == "renewed"
    stopped = tab.send("submit", text="and again")
    tab.send("ended", result={"outcome": "interrupted"}, here=True)
    assert "why" not in tab.state["turns"][-1] and stopped[-1]["type"] == "send"
