"""The page's rules (web/src/page/run/session.js, run in Node.js): one run, one lesson. A Run pressed
while a lesson opens, while a run stops or while Python starts again waits and runs the lesson on
screen; a run's result for a lesson no longer shown is not drawn; forks follow the same rules."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from conftest import node_module

LESSONS = [{"slug": s, "title": s.title(), "hash": s[:2]} for s in ("alpha", "beta", "gamma")]
DONE = {"outcome": "checked", "ok": True, "error": None, "checks": []}


session_js = node_module("web/src/page/run/session.js")


class Page:
    """The session as main.js drives it: events in, effects out; a start or fork effect is taken by
    the runner at once (main.js dispatches `started`), as the page does."""

    def __init__(self, js):
        self.js = js
        self.state = js.call("initial")
        self.effects: list[dict] = []
        self.clock = 0

    def send(self, type_: str, **fields) -> list[dict]:
        step = self.js.call("next", self.state, {"type": type_, **fields})
        self.state = step["state"]
        self.effects += step["effects"]
        for effect in step["effects"]:
            if effect["type"] in ("start", "fork", "chat"):
                self.clock += 1
                self.send("started", kind="run" if effect["type"] == "start" else effect["type"], at=self.clock)
        return step["effects"]

    def types(self, effects) -> list[str]:
        return [e["type"] for e in effects]

    def open(self, slug: str) -> int:
        effects = self.send("open", slug=slug)
        return next(e for e in effects if e["type"] == "load")["ticket"]

    def show(self, ticket: int, slug: str) -> list[dict]:
        meta = next(m for m in LESSONS if m["slug"] == slug)
        return self.send("shown", ticket=ticket, meta=meta, lesson={"slug": slug, "cells": []})

    def end(self, result=DONE) -> list[dict]:
        self.clock += 1
        return self.send("ended", result=result, at=self.clock)

    def controls(self) -> dict:
        return self.js.call("controls", self.state)


def ready_on(js, slug="alpha") -> Page:
    page = Page(js)
    page.send("listed", lessons=LESSONS)
    page.send("starting", restart=False)
    page.send("ready", info={"python": "3.12"})
    page.show(page.open(slug), slug)
    return page


def test_run_pressed_while_a_lesson_opens_runs_that_lesson_once_it_is_shown(session_js):
    page = ready_on(session_js)
    beta = page.open("beta")
    assert page.types(page.send("run")) == []  # beta is on its way: the Run waits for it
    assert page.state["wanted"] == beta and page.state["run"] is None
    effects = page.show(beta, "beta")
    assert page.types(effects) == ["draw", "follow", "start"]  # drawn first, then run
    start = effects[2]
    assert start["ticket"] == beta and start["meta"]["slug"] == "beta"
    assert page.state["run"]["meta"]["slug"] == "beta" and page.state["wanted"] == 0
    assert page.controls() == {"runDisabled": True, "stopDisabled": False, "running": True}


def test_opening_yet_another_lesson_cancels_a_waiting_run_and_drops_the_late_lesson(session_js):
    page = ready_on(session_js)
    beta = page.open("beta")
    page.send("run")
    gamma = page.open("gamma")
    assert page.types(page.show(beta, "beta")) == []  # arrived after gamma was asked for: not drawn
    assert page.state["lesson"]["slug"] == "alpha"
    effects = page.show(gamma, "gamma")
    assert page.types(effects) == ["draw", "follow"]  # the Run was for beta: nothing starts
    assert page.state["run"] is None and page.state["wanted"] == 0 and page.state["lesson"]["slug"] == "gamma"


def test_run_pressed_while_the_last_lessons_run_stops_starts_once_it_has_ended(session_js):
    page = ready_on(session_js)
    page.send("run")
    assert page.state["run"]["meta"]["slug"] == "alpha"
    beta = page.open("beta")
    assert page.effects[-2] == {"type": "stop", "say": False}  # leaving a lesson stops its run
    follow = page.show(beta, "beta")[1]
    assert follow["run"]["meta"]["slug"] == "alpha"  # "Opened Beta; stopping the run of Alpha…"
    assert page.types(page.send("run")) == []
    assert page.controls()["runDisabled"] is False and page.state["wanted"] == beta
    ended = page.end({"outcome": "interrupted", "checks": []})
    assert page.types(ended) == ["ended", "start"]
    assert ended[0]["here"] is False and ended[0]["run"]["meta"]["slug"] == "alpha"
    assert ended[1]["meta"]["slug"] == "beta" and page.state["run"]["ticket"] == beta


def test_run_pressed_while_python_restarts_runs_when_it_is_ready_again(session_js):
    page = ready_on(session_js)
    page.send("run")
    assert page.send("stop") == [{"type": "stop", "say": True, "ticket": page.state["shown"]}]
    page.end({"outcome": "restarted", "checks": []})
    assert page.types(page.send("starting", restart=True)) == ["forget"]  # kept runs went with the worker
    effects = page.send("run")
    assert page.types(effects) == ["toast"] and effects[0]["say"] == "waiting"
    assert page.controls() == {"runDisabled": True, "stopDisabled": False, "running": False}
    effects = page.send("ready", info={"python": "3.12"})
    assert page.types(effects) == ["ready", "start"] and effects[1]["meta"]["slug"] == "alpha"
    assert page.state["run"]["kind"] == "run"


def test_before_python_has_ever_been_ready_run_is_refused_with_a_word(session_js):
    page = Page(session_js)
    page.send("listed", lessons=LESSONS)
    page.show(page.open("alpha"), "alpha")
    effects = page.send("run")
    assert effects == [{"type": "toast", "say": "loading"}]
    assert page.state["wanted"] == 0 and page.types(page.send("ready", info={})) == ["ready"]
    # and when Python cannot load at all, a Run waiting for it is dropped
    page.send("crashed", message="no memory", restart=False)
    assert page.state["python"] == "failed" and page.controls()["runDisabled"] is True


def test_a_runs_result_for_a_lesson_no_longer_shown_is_not_reported_there(session_js):
    page = ready_on(session_js)
    page.send("run")
    beta = page.open("beta")
    page.show(beta, "beta")
    effects = page.end()
    assert page.types(effects) == ["ended"]
    assert effects[0]["here"] is False and effects[0]["lesson"]["slug"] == "beta"
    assert effects[0]["run"]["meta"]["slug"] == "alpha"  # its checks are saved for alpha, not drawn
    # on screen, the same result is reported there
    page.send("run")
    effects = page.end()
    assert effects[0]["here"] is True and effects[0]["run"]["ticket"] == beta


def test_a_fork_of_a_fork_runs_after_the_first_ends_and_never_beside_it(session_js):
    page = ready_on(session_js)
    page.send("run")
    page.end()
    first = {"run": 1, "step": 2, "reply": "edited"}
    effects = page.send("fork", request=first)
    assert page.types(effects) == ["fork"] and effects[0]["request"] == first
    assert page.state["run"]["kind"] == "fork"
    refused = page.send("fork", request={"run": 2, "step": 1, "reply": "again"})
    assert refused == [{"type": "refused", "error": "Python is busy: wait for the run to end, then fork."}]
    forked = page.end({**DONE, "fork": {"run": 2, "steps": 3, "stopped": "final", "fork_of": 1}})
    assert page.types(forked) == ["forked"] and forked[0]["here"] is True
    second = {"run": 2, "step": 1, "reply": "again"}  # the fork's own run, forked
    effects = page.send("fork", request=second)
    assert page.types(effects) == ["fork"] and effects[0]["request"]["run"] == 2
    assert page.js.call("busy", page.state) == "Python is busy: wait for the run to end"
    assert page.types(page.end()) == ["forked"] and page.js.call("busy", page.state) is None


def test_a_chat_turn_is_a_run_stop_ends_it_and_the_next_message_waits_for_its_end(session_js):
    page = ready_on(session_js)
    effects = page.send("chat", request={"message": "what is my name?"})
    assert page.types(effects) == ["chat"] and effects[0]["request"]["message"] == "what is my name?"
    assert page.state["run"]["kind"] == "chat" and page.controls() == {
        "runDisabled": True,
        "stopDisabled": False,
        "running": True,
    }
    assert page.send("chat", request={"message": "again"}) == [
        {"type": "refused", "error": "Python is busy: wait for the run to end, then send it again."}
    ]
    assert page.types(page.send("run")) == []  # Run waits for nothing: the turn is this lesson's run
    stop = page.send("stop")
    assert page.types(stop) == ["stop"] and stop[0]["say"] is True
    ended = page.end({**DONE, "outcome": "interrupted", "chat": None})
    assert page.types(ended) == ["chatted"] and ended[0]["here"] is True and page.state["run"] is None
    assert page.types(page.send("chat", request={"message": "again"})) == ["chat"]
    page.end()
    page.send("starting", restart=True)
    assert page.send("chat", request={"message": "x"})[0]["error"].startswith("Python is not ready yet")
    page.send("ready", info={})
    page.open("beta")  # on its way: a message waits for no lesson
    assert page.send("chat", request={"message": "x"})[0]["error"].startswith("The lesson is still opening")


def test_why_a_run_cannot_be_forked_names_the_reason(session_js):
    page = ready_on(session_js)
    ended, live = {"source": "live", "stop": {"stopped": "final"}}, {"source": "live", "stop": None}
    why = lambda run: page.js.call("whyNoFork", page.state, run)  # noqa: E731
    assert why(ended) is None and why(live) == "The run has not ended yet."
    assert "imported run" in why({**ended, "source": "imported"}) and "restarted" in why({**ended, "source": "gone"})
    page.send("run")
    assert why(ended) == "Python is busy: wait for the run to end."
    page.end()
    page.send("starting", restart=True)
    assert why(ended) == "Python is busy: wait for the run to end." and why({**ended, "source": "gone"}).startswith(
        "Python was"
    )


# Any order of what a learner and the worker do: never two runs at once, a run starts only for the
# lesson on screen with nothing on its way, and a lesson's arrival is drawn only for the latest open.
ACTIONS = st.sampled_from(
    ["open", "shown", "shown-late", "run", "stop", "end", "restart", "ready", "crash", "fork", "chat"]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(ACTIONS, min_size=8, max_size=30),
    st.lists(st.sampled_from([s["slug"] for s in LESSONS]), min_size=30, max_size=30),
)
def test_whatever_happens_one_run_at_a_time_for_the_lesson_on_screen(session_js, actions, slugs):
    page = ready_on(session_js)
    pending: dict[int, str] = {}
    for action, slug in zip(actions, slugs):
        before = page.state
        start = len(page.effects)
        if action == "open":
            pending[page.open(slug)] = slug
        elif action in ("shown", "shown-late") and pending:
            ticket = max(pending) if action == "shown" else min(pending)
            effects = page.show(ticket, pending.pop(ticket))
            assert ("draw" in page.types(effects)) == (ticket == before["showing"])
        elif action == "end" and page.state["run"]:
            page.end()
        elif action == "restart":
            page.send("starting", restart=True)
        elif action == "crash":
            page.send("crashed", message="boom", restart=True)
        elif action == "fork":
            page.send("fork", request={"run": 1, "step": 1, "reply": "x"})
        elif action == "chat":
            page.send("chat", request={"message": "hi"})
        elif action in ("run", "stop", "ready"):
            page.send(action, **({"info": {}} if action == "ready" else {}))
        for effect in page.effects[start:]:
            if effect["type"] in ("start", "fork", "chat"):
                assert effect["ticket"] == page.state["shown"]
            if effect["type"] == "start":
                assert effect["ticket"] == page.state["showing"] and effect["meta"] == page.state["lesson"]
        starts = [e for e in page.effects[start:] if e["type"] in ("start", "fork", "chat")]
        assert len(starts) <= 1 and (not starts or (before["run"] is None or action == "end"))
        assert page.state["python"] in ("starting", "ready", "failed")
