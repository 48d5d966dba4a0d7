"""bench/local_agent.py counts a lesson's tool calls from the replies its recording proxy saw
(tests/llamaserver.py's Recorder), so a lesson whose loop is the learner's own (no looplab trace)
gets figures too. Here the proxy stands before the fake server, which answers with calls both
ways the page's engine gets them: native `tool_calls`, and JSON actions under the action schema."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from fakeserver import chat_call, chat_calls, chat_text
from llamaserver import Recorder
from local_agent import reply_calls
from test_golden import TOOLS

from looplab.models.prompted import action_schema

ADD = TOOLS[0]  # add(a: number, b: number)
ACTIONS = {"type": "json_schema", "json_schema": {"name": "action", "schema": action_schema([ADD])}}


def post(url: str, **body) -> dict:
    request = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps({"messages": [{"role": "user", "content": "2 + 3?"}], **body}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def action(**fields) -> str:
    return json.dumps(fields)


def test_calls_are_counted_from_the_replies_native_and_json_actions(fake):
    fake.script(
        chat_call("add", {"a": 2, "b": 3}),  # valid
        chat_calls(("add", {"a": 2}, "c1"), ("subtract", {"a": 2, "b": 3}, "c2")),  # a missing b, an unknown tool
        chat_call("add", "{not json"),  # arguments that are no JSON
        chat_text("5"),  # an answer, no call
        chat_text(action(type="tool_call", name="add", arguments={"a": 2, "b": 3})),  # valid
        chat_text(action(type="tool_call", name="add", arguments={"a": "two", "b": 3})),  # a string for a number
        chat_text(action(type="final_answer", answer="5")),  # an answer, no call
        chat_text("I think it is 5"),  # no readable action: an invalid call
    )
    with Recorder(fake) as proxy:
        for _ in range(4):
            post(proxy.url, tools=[ADD], tool_choice="auto")
        for _ in range(4):
            post(proxy.url, response_format=ACTIONS)
        replies = proxy.take()
    assert len(replies) == 8
    assert replies[0]["offered"]["tools"] == [ADD] and replies[4]["offered"]["response_format"] == ACTIONS
    assert [len(r["message"]["tool_calls"]) for r in replies[:4]] == [1, 2, 1, 0]
    assert reply_calls(replies[:4]) == (1, 4)
    assert reply_calls(replies[4:]) == (1, 3)
    assert reply_calls(replies) == (2, 7)


def test_a_call_of_a_tool_the_request_did_not_offer_is_invalid(fake):
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_call("add", {"a": 2, "b": 3}))
    with Recorder(fake) as proxy:
        post(proxy.url)  # no tools offered: a call is of no listed tool
        post(proxy.url, tools=[ADD])
        replies = proxy.take()
    assert reply_calls(replies[:1]) == (0, 1)
    assert reply_calls(replies[1:]) == (1, 1)
