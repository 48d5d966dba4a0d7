"""messages.py on its own: a reply made into a clean assistant message, call ids, content and arguments as text.

The loop's use of it (what each malformed reply does to a run) is tested in test_loop.py.
"""

import ast
import copy
import json
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import looplab.messages
import looplab.schema
from looplab.messages import arguments_text, call_ids, id_problem, read_calls, read_reply, text_of, tool_message


def test_a_clean_reply_comes_back_equal_and_the_raw_reply_is_untouched():
    raw = {
        "role": "assistant",
        "content": "checking",
        "thought": "need the sum",
        "tool_calls": [{"id": "a", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}],
    }
    before, seen = copy.deepcopy(raw), {"old"}
    reply, broken, problem = read_reply(raw, 1, seen)
    assert (reply, broken, problem) == (raw, {}, None)
    assert raw == before and reply["tool_calls"] is not raw["tool_calls"]
    assert seen == {"old", "a"}  # the id is now used


def test_a_reply_is_made_an_assistant_message_whatever_role_and_content_it_had():
    reply, broken, problem = read_reply({"role": "user", "content": {"answer": 4}, "extra": 1}, 2, set())
    assert problem is None and broken == {}
    assert reply == {"role": "assistant", "content": '{"answer": 4}', "extra": 1}
    one, _, _ = read_reply({"tool_calls": {"id": "x", "function": {"name": "f"}}}, 1, set())
    assert one["content"] is None
    assert one["tool_calls"] == [{"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}]


def test_replies_that_cannot_be_a_message_give_a_problem_and_nothing_else():
    for raw, said in [
        (None, "was NoneType"),
        (["a"], "was list"),
        ({"content": "x", "tool_calls": 5}, "was int"),
        ({"content": " \n"}, "no text and no tool calls"),
        ({"tool_calls": []}, "no text"),
    ]:
        reply, broken, problem = read_reply(raw, 1, set())
        assert reply == {} and broken == {} and said in problem


def test_broken_calls_keep_their_place_get_ids_of_ours_and_an_error_text():
    seen = {"used"}
    calls = [
        {"id": "used", "function": {"name": "a"}},
        {"function": {"name": "b"}},
        7,
        {"id": "call_3_2", "function": {"name": ""}},
        {"id": "ok", "function": {"name": "c", "arguments": {"x": 1}}},
    ]
    out, broken = read_calls(calls, 3, seen)
    ids = [c["id"] for c in out]
    assert ids == ["call_3_1", "call_3_2_", "call_3_3", "call_3_2", "ok"]  # the model's own call_3_2 kept
    assert [c["function"]["name"] for c in out] == ["a", "b", "?", "?", "c"]
    assert out[4]["function"]["arguments"] == '{"x": 1}'
    assert "reused the id 'used'" in broken["call_3_1"] and "had no id" in broken["call_3_2_"]
    assert "not an object" in broken["call_3_3"] and "no function name" in broken["call_3_2"]
    assert "ok" not in broken and seen == {"used", *ids}


def test_id_problem_names_what_is_wrong_with_an_id():
    assert id_problem(None, set()) == "had no id" and id_problem("", set()) == "had no id"
    assert id_problem(12, set()) == "had an id that is not text (12)"
    assert id_problem("c1", {"c1"}) == "reused the id 'c1'" and id_problem("c1", {"c2"}) is None


def test_text_of_and_arguments_text():
    assert text_of(None) is None and text_of("hi") == "hi"
    assert text_of([{"type": "text", "text": "a"}, {"type": "image_url"}, "b", {"text": None}]) == "ab"
    assert text_of(3) == "3" and text_of({"k": {1, 2}}).startswith('{"k": "{')
    circular = []
    circular.append(circular)
    assert arguments_text(None) == "{}" and arguments_text("not json") == "not json"
    assert arguments_text({"a": [1]}) == '{"a": [1]}' and arguments_text(circular) == '"[[...]]"'


def test_call_ids_and_tool_message():
    history = [
        {"role": "user", "content": "t"},
        {"role": "assistant", "tool_calls": [{"id": "a"}, "junk", {"id": "b"}]},
        {"role": "assistant", "tool_calls": {"id": "not in a list"}},
        tool_message("a", "3"),
    ]
    assert call_ids(history) == {"a", "b"}
    assert history[-1] == {"role": "tool", "tool_call_id": "a", "content": "3"}


def test_messages_and_schema_import_only_the_standard_library_so_no_circle_closes_through_them():
    for module in (looplab.messages, looplab.schema):
        tree = ast.parse(Path(module.__file__).read_text())
        relative = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        absolute = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
        absolute |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert relative == [], f"{module.__name__}: {relative}"
        assert absolute and {name.split(".")[0] for name in absolute} <= sys.stdlib_module_names, absolute


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
CALLS = st.one_of(
    st.fixed_dictionaries(
        {"function": st.fixed_dictionaries({"arguments": JSON}, optional={"name": JSON})},
        optional={"id": st.one_of(st.sampled_from(["a", "b", "call_1_1", "", "used"]), JSON)},
    ),
    JSON,
)
REPLIES = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {}, optional={"role": JSON, "content": JSON, "tool_calls": st.one_of(JSON, CALLS, st.lists(CALLS, max_size=4))}
    ),
)


@given(REPLIES, st.integers(1, 9))
def test_any_reply_is_a_problem_or_a_message_whose_calls_all_have_fresh_unique_ids(raw, step):
    before, seen = copy.deepcopy(raw), {"used"}
    reply, broken, problem = read_reply(raw, step, seen)
    assert raw == before  # the model's reply is never changed in place
    if problem is not None:
        assert reply == {} and broken == {} and seen == {"used"}
        return
    calls = reply.get("tool_calls", [])
    ids = [c["id"] for c in calls]
    assert reply["role"] == "assistant" and (calls or (reply["content"] or "").strip())
    assert len(set(ids)) == len(ids) and "used" not in ids and seen == {"used", *ids}
    assert set(broken) <= set(ids) and all(text.startswith("error:") for text in broken.values())
    for call in calls:
        assert isinstance(call["id"], str) and call["id"] and call["type"] == "function"
        assert isinstance(call["function"]["name"], str) and call["function"]["name"]
        assert isinstance(call["function"]["arguments"], str)
    json.dumps({k: reply[k] for k in ("role", "content", "tool_calls") if k in reply})
