"""The local model's Python side: the requests it writes for the page's engine, the replies it reads,
the schema that constrains a tiny model to valid actions, and the plain message in CPython.

The engine itself runs in the browser (tests/e2e/test_local_model.py). Here `ask` is a small
engine of the test's own that answers like the page does: {"message": ..., "finish_reason": ...}.
"""

import json

import pytest
from hypothesis import given, settings, strategies as st

from looplab import Memory, Toolbox, run_agent
from looplab.models import pick_model
from looplab.models.errors import ModelError
from looplab.models.local import IN_CPYTHON, local_model
from looplab.models.prompted import action_schema, parse_action
from looplab.page import PageUnavailable


def toolbox():
    box = Toolbox()
    box.register(
        "add_numbers",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: a + b,
    )
    box.register(
        "get_temperature",
        "Return the temperature of a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        lambda city: f"{len(city)}°C",
    )
    return box


class Page:
    """Answers the model's questions as the page does, from a list of reply texts; keeps the requests."""

    def __init__(self, replies, native_tools=False, finish="stop"):
        self.replies, self.native_tools, self.finish = list(replies), native_tools, finish
        self.requests = []

    def __call__(self, kind, request):
        assert kind == "model"
        self.requests.append(request)
        if request["op"] == "describe":
            return {"model": "tiny", "native_tools": self.native_tools}
        reply = self.replies.pop(0)
        message = reply if isinstance(reply, dict) else {"role": "assistant", "content": reply}
        return {"message": message, "finish_reason": self.finish, "timings": {"tokens": 7}}


def test_in_cpython_local_mode_says_where_the_model_runs_and_what_to_use_here(monkeypatch):
    with pytest.raises(ModelError) as error:
        local_model()
    assert error.value.kind == "setup" and str(error.value) == IN_CPYTHON
    assert "browser" in IN_CPYTHON and "ollama serve" in IN_CPYTHON and "llama-server" in IN_CPYTHON
    monkeypatch.setenv("LOOPLAB_MODEL", "local")
    with pytest.raises(ModelError, match="runs in the browser"):
        pick_model([])


def test_without_tools_the_request_is_plain_chat_and_a_cut_reply_is_marked():
    page = Page(["Hello there"], finish="length")
    model = local_model(ask=page)
    reply = model([{"role": "system", "content": "Be brief.", "tokens": 3}, {"role": "user", "content": "Hi"}], [])
    assert reply == {"role": "assistant", "content": "Hello there", "cut": "length"}
    [request] = page.requests
    assert request["op"] == "chat" and "tools" not in request and "response_format" not in request
    assert request["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert request["max_tokens"] == 384 and model.last == {"tokens": 7}


def test_a_model_without_native_tools_is_constrained_to_the_actions_of_the_listed_tools():
    box = toolbox()
    page = Page(
        [
            '{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 2, "b": 3}}',
            '{"type": "final_answer", "answer": "5"}',
        ]
    )
    result = run_agent("What is 2 + 3?", local_model(ask=page), box, Memory("You add."))
    assert result["stopped"] == "final" and result["answer"] == "5" and result["tool_calls"] == 1
    describe, first, second = page.requests
    assert describe == {"op": "describe"}
    assert first["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "action", "schema": action_schema(box.schemas())},
    }
    assert "tools" not in first and "add_numbers" in first["messages"][0]["content"]  # tools in the prompt
    assert second["messages"][-1] == {"role": "user", "content": "Tool result from add_numbers: 5"}


def test_a_valid_call_with_wrong_values_still_meets_the_toolbox():
    box = toolbox()
    page = Page(
        [
            '{"type": "tool_call", "name": "get_temperature", "arguments": {"city": ""}}',
            '{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 2, "b": "three"}}',
            '{"type": "final_answer", "answer": "I could not."}',
        ]
    )
    memory = Memory("You help.")
    result = run_agent("What is 2 + 3?", local_model(ask=page), box, memory)
    results = [m["content"] for m in memory.history if m["role"] == "tool"]
    assert result["stopped"] == "final" and len(results) == 2
    assert results[0] == "0°C"  # well-formed, wrong: it runs
    assert results[1].startswith("error: argument 'b' of add_numbers must be")  # mistyped: the Toolbox says so


def test_a_model_whose_template_knows_tools_gets_them_natively():
    box = toolbox()
    call = {"id": "call_1", "type": "function", "function": {"name": "add_numbers", "arguments": '{"a": 1, "b": 2}'}}
    page = Page([{"role": "assistant", "content": None, "tool_calls": [call]}], native_tools=True)
    reply = local_model(ask=page)([{"role": "user", "content": "1+2?"}], box.schemas())
    assert reply == {"role": "assistant", "content": None, "tool_calls": [call]}
    request = page.requests[-1]
    assert request["tools"] == box.schemas() and request["tool_choice"] == "auto" and "response_format" not in request


def test_the_page_s_errors_and_a_page_that_cannot_wait_become_model_errors():
    def unloaded(kind, request):
        return {"error": "no local model is loaded: pick a .gguf file in Settings → Local model", "kind": "setup"}

    with pytest.raises(ModelError, match="pick a .gguf file") as error:
        local_model(ask=unloaded)([{"role": "user", "content": "hi"}], [])
    assert error.value.kind == "setup"

    def not_isolated(kind, request):
        raise PageUnavailable("the page is not cross-origin isolated")

    with pytest.raises(ModelError, match="needs a cross-origin isolated page") as error:
        local_model(ask=not_isolated)([{"role": "user", "content": "hi"}], [])
    assert "Reload the page" in str(error.value)
    result = run_agent("hi", local_model(ask=not_isolated), toolbox(), Memory("x"))
    assert result["stopped"] == "error" and "cross-origin isolated" in result["detail"]


def test_the_action_schema_lists_each_tool_once_and_a_final_answer():
    schema = action_schema(toolbox().schemas(), react=True)
    branches = schema["anyOf"]
    names = [b["properties"].get("name", {}).get("const") for b in branches]
    assert names == ["add_numbers", "get_temperature", None]
    for branch in branches:
        assert list(branch["properties"])[:2] == ["type", "thought"]  # the thought is written first
        assert branch["required"] == list(branch["properties"]) and branch["additionalProperties"] is False
    assert branches[0]["properties"]["arguments"]["additionalProperties"] is False
    assert action_schema([])["properties"]["type"] == {"const": "final_answer"}
    jsonschema = pytest.importorskip("jsonschema")  # the reference validator (CPython only)
    valid = jsonschema.Draft202012Validator(action_schema(toolbox().schemas())).is_valid
    assert valid({"type": "tool_call", "name": "get_temperature", "arguments": {"city": "Oslo"}})
    assert valid({"type": "final_answer", "answer": "Oslo."})
    assert not valid({"type": "tool_call", "name": "get_weather", "arguments": {"city": "Oslo"}})  # not listed
    assert not valid({"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1}})  # b missing
    assert not valid({"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1, "b": 2, "c": 3}})
    assert not valid({"type": "final_answer", "answer": ""})
    assert not valid({"type": "tool_call", "name": "get_temperature", "arguments": {"city": "x" * 201}})  # bounded


# --- property: what the schema admits is exactly what the adapter and the Toolbox accept ---------

NAMES = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)
PARAM = st.sampled_from(
    [
        {"type": "string"},
        {"type": "number"},
        {"type": "integer"},
        {"type": "boolean"},
        {"type": "string", "enum": ["a", "b"]},
    ]
)
VALUES = st.one_of(
    st.text(max_size=5),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["a", "b"]),
)


@st.composite
def tool_sets(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    box = Toolbox()
    for name in names:
        params = draw(st.dictionaries(NAMES, PARAM, max_size=3))
        required = [k for k in params if draw(st.booleans())]
        box.register(
            name, f"tool {name}", {"type": "object", "properties": params, "required": required}, lambda **kw: "ran"
        )
    return box


@st.composite
def actions(draw, names):
    if draw(st.booleans()):
        return {"type": "final_answer", "answer": draw(st.text(max_size=5))}
    name = draw(st.one_of(st.sampled_from(names), NAMES))
    arguments = draw(st.dictionaries(NAMES, VALUES, max_size=3))
    return {"type": "tool_call", "name": name, "arguments": arguments}


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_every_action_the_schema_admits_is_a_listed_call_the_toolbox_accepts(data):
    jsonschema = pytest.importorskip("jsonschema")  # the reference validator (CPython only)
    box = data.draw(tool_sets())
    schema = action_schema(box.schemas())
    action = data.draw(actions([tool["function"]["name"] for tool in box.schemas()]))
    admitted = jsonschema.Draft202012Validator(schema).is_valid(action)
    message, problem = parse_action(json.dumps(action))
    if not admitted:
        return
    assert problem is None
    if action["type"] == "final_answer":
        assert message["content"] == action["answer"] and action["answer"]
        return
    call = message["tool_calls"][0]["function"]
    assert call["name"] in box
    assert not box.run(call["name"], call["arguments"]).startswith("error:")


def test_the_engine_s_cache_figures_reach_the_trace_as_evaluated_n_of_m_prompt_tokens():
    """The page's timings (prompt_tokens evaluated, prompt_cached from the KV cache) become the reply's
    `prompt`, which the loop puts on model_reply and the trace describes; it never enters memory."""
    from looplab import Collector
    from looplab.trace import describe

    class CachingPage(Page):
        def __call__(self, kind, request):
            answer = super().__call__(kind, request)
            if request["op"] == "chat":  # the first step reads all 120 tokens, the second only its 9 new ones
                answer["timings"] = (
                    {"prompt_tokens": 120, "prompt_cached": 0}
                    if len(self.requests) == 2
                    else {"prompt_tokens": 9, "prompt_cached": 131}
                )
            return answer

    page = CachingPage(
        [
            '{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 2, "b": 3}}',
            '{"type": "final_answer", "answer": "5"}',
        ]
    )
    tracer = Collector()
    memory = Memory("You add.")
    result = run_agent("What is 2 + 3?", local_model(ask=page), toolbox(), memory, tracer=tracer)
    replies = [e for e in tracer.events if e["type"] == "model_reply"]
    assert result["stopped"] == "final" and [r["prompt"] for r in replies] == [
        {"evaluated": 120, "tokens": 120},
        {"evaluated": 9, "tokens": 140},
    ]
    lines = [describe(r) for r in replies]
    assert "evaluated 120 of 120 prompt tokens" in lines[0] and "evaluated 9 of 140 prompt tokens" in lines[1], lines
    assert not any("prompt" in m for m in memory.messages()), memory.messages()


def test_a_reply_s_thought_is_kept_apart_from_its_answer():
    page = Page([{"role": "assistant", "content": "Paris.", "thought": "The capital of France is Paris."}])
    reply = local_model(ask=page)([{"role": "user", "content": "Capital of France?"}], [])
    assert reply["content"] == "Paris." and reply["thought"] == "The capital of France is Paris."
