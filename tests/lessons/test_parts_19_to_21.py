"""The parts learners build in lessons 19-21, run on cases beyond the ones the lessons print.

Each section loads a lesson's solution namespace and tests the part defined there, with
hypothesis properties for its invariants; the last test runs lesson 19 live against the fake
server and looks at what went over the wire.
"""

import asyncio
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from looplab.budget import Budget, read_usage
from looplab.eventloop import run_sync
from looplab._course.lesson import run_file
from looplab.models import ModelError, final, scripted
from looplab.schema import allows, check_value, strict_problems, strict_schema
from looplab.tools import TransientError

ROOT = Path(__file__).resolve().parents[2]
PROPERTY = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None, max_examples=300)


# --- lesson 19: make_strict and ask_json -------------------------------------------------------

LEAVES = st.sampled_from(
    [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"type": "string", "enum": ["a", "b"]}]
)


def objects(inner):
    return st.builds(
        lambda props, n: {"type": "object", "properties": props, "required": list(props)[:n]},
        st.dictionaries(st.sampled_from(["p", "q", "r", "s"]), inner, max_size=4),
        st.integers(0, 4),
    )


SCHEMAS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(objects(inner), st.builds(lambda items: {"type": "array", "items": items}, inner)),
    max_leaves=10,
)


@PROPERTY
@given(objects(SCHEMAS))
def test_make_strict_gives_what_strict_mode_accepts_and_what_looplab_gives(solved, schema):
    make_strict = solved("19")["make_strict"]
    before = json.dumps(schema, sort_keys=True)
    strict = make_strict(schema)
    assert json.dumps(schema, sort_keys=True) == before  # the input is left alone
    assert strict_problems(strict) == []
    assert strict == strict_schema(schema)  # the same rule as the hardened version
    for key, sub in strict["properties"].items():  # optional ones, and only they, take null
        assert allows(sub, None) == (key not in schema.get("required", []))


REPLIES = st.one_of(
    st.just('{"facts": ["a"]}'),
    st.just('{"facts": "a"}'),
    st.just("no json"),
    st.just('{"facts": ["a"], "more": 1}'),
    st.just('{"facts": [1]}'),
    st.just("[]"),
    st.lists(st.text(max_size=5), max_size=2).map(lambda f: json.dumps({"facts": f})),
)


@PROPERTY
@given(st.lists(REPLIES, min_size=2, max_size=2))
def test_ask_json_returns_a_fitting_value_or_raises_model_error_in_at_most_two_calls(solved, texts):
    ns = solved("19")
    model = scripted([final(t) for t in texts])
    try:
        value = ns["ask_json"](model, [{"role": "user", "content": "facts?"}], ns["FACTS"], "facts")
    except ModelError as exc:
        assert "facts" in str(exc) and len(model.calls) == 2
    else:
        assert check_value(ns["make_strict"](ns["FACTS"]), value, "x") is None
        assert value == json.loads(texts[len(model.calls) - 1])  # the reply it took, unchanged
    assert all(c["response_format"]["type"] == "json_schema" for c in model.calls)


def test_ask_json_with_a_model_that_raises_lets_the_error_through(solved):
    ns = solved("19")

    def broken(messages, tools, response_format=None):
        raise ModelError("401 from the endpoint: the API key was refused")

    with pytest.raises(ModelError, match="401"):
        ns["ask_json"](broken, [{"role": "user", "content": "x"}], ns["FACTS"], "facts")


# --- lesson 20: usage_of, run_cost and Spend (over the learner's run_cost) ------------------------

COUNTS = st.one_of(st.none(), st.integers(0, 10_000))


@PROPERTY
@given(
    st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {},
            optional={
                "prompt_tokens": st.integers(0, 10_000),
                "completion_tokens": st.integers(0, 10_000),
                "input_tokens": st.integers(0, 10_000),
                "output_tokens": st.integers(0, 10_000),
                "total_tokens": st.integers(0, 20_000),
                "prompt_tokens_details": st.fixed_dictionaries({}, optional={"cached_tokens": st.integers(0, 12_000)}),
                "input_tokens_details": st.fixed_dictionaries({}, optional={"cached_tokens": st.integers(0, 12_000)}),
            },
        ),
    )
)
def test_usage_of_agrees_with_read_usage(solved, usage):
    if (
        usage
        and ("prompt_tokens" in usage) != ("completion_tokens" in usage)
        and ("input_tokens" in usage or "output_tokens" in usage)
    ):
        return  # a mix of both spellings: no server sends that, and the two may choose differently
    assert solved("20")["usage_of"](usage) == read_usage(usage)


@PROPERTY
@given(
    st.lists(st.tuples(st.integers(0, 900), st.integers(0, 100)), max_size=8),
    st.one_of(st.none(), st.integers(0, 3000)),
    st.one_of(st.none(), st.floats(0, 0.001)),
    st.floats(0, 1),
)
def test_spend_runs_out_exactly_when_a_limit_is_reached_and_names_it(solved, calls, max_tokens, max_cost, share):
    prices = {"in": 0.15, "cached": 0.075, "out": 0.6}
    spend = solved("20")["Spend"](max_tokens=max_tokens, max_cost=max_cost, prices=prices)
    prompt = completion = cached = 0
    for p, c in calls:
        hit = int(p * share)  # this much of the prompt came from the cache
        spend.add({"prompt": p, "completion": c, "total": p + c, **({"cached": hit} if hit else {})})
        prompt, completion, cached = prompt + p, completion + c, cached + hit
    cost = ((prompt - cached) * 0.15 + cached * 0.075 + completion * 0.6) / 1e6
    assert cost == pytest.approx(
        Budget(price_in=0.15, price_out=0.6, price_cached=0.075).cost_of(prompt, completion, cached)
    )
    tokens_out = max_tokens is not None and prompt + completion >= max_tokens
    cost_out = max_cost is not None and cost >= max_cost
    why = spend.ran_out()
    assert (why is not None) == (tokens_out or cost_out)
    assert spend.cost == pytest.approx(cost)
    if why:
        assert why.startswith("tokens") if tokens_out else why.startswith("cost")


# --- lesson 21: call_with_retries and run_calls_together ---------------------------------------


@PROPERTY
@given(
    st.integers(0, 5), st.integers(0, 4), st.sampled_from([ConnectionError, TimeoutError, TransientError, ValueError])
)
def test_call_with_retries_tries_as_often_as_it_may_and_waits_doubling(solved, failures, retries, error):
    call_with_retries = solved("21")["call_with_retries"]
    made, waits = [], []

    def service(city):
        made.append(city)
        if len(made) <= failures:
            raise error("down")
        return "ok"

    result = call_with_retries(service, {"city": "Oslo"}, retries=retries, sleep=waits.append, base=0.25)
    retryable = error is not ValueError
    expected_calls = min(failures, retries) + 1 if retryable else 1
    assert len(made) == expected_calls
    assert waits == [0.25 * 2**i for i in range(len(made) - 1)]
    assert (result == "ok") == (failures < len(made))
    if result != "ok" and retryable:
        assert f"tried {retries + 1} times" in result


@PROPERTY
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=6))
def test_run_calls_together_answers_every_call_once_in_order(solved, plan):
    run_calls_together = solved("21")["run_calls_together"]
    log = []

    async def tool(n: int, fail: bool):
        log.append("start")
        for _ in range(n + 1):  # each call waits at least once: a chance for the others to start
            await asyncio.sleep(0)
        log.append("end")
        if fail:
            raise RuntimeError("broken")
        return f"done {n}"

    tool_calls = [
        {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "tool", "arguments": json.dumps({"n": n, "fail": fail})},
        }
        for i, (n, fail) in enumerate(plan)
    ]
    messages = run_sync(run_calls_together(tool_calls, {"tool": tool}))
    assert [m["tool_call_id"] for m in messages] == [c["id"] for c in tool_calls]
    assert [m["content"].startswith("error:") for m in messages] == [fail for _, fail in plan]
    assert [m["content"] for m in messages if not m["content"].startswith("error:")] == [
        f"done {n}" for n, fail in plan if not fail
    ]
    assert log == ["start"] * len(plan) + ["end"] * len(plan)  # all started before any ended


# --- lesson 19 live: what went over the wire ----------------------------------------------------


def test_lesson_19_live_sends_strict_formats_to_the_server(monkeypatch, capsys):
    sys.path.insert(0, str(ROOT / "tests"))
    from fakeserver import FakeServer

    with FakeServer() as server:
        for name, value in [
            ("LOOPLAB_MODEL", "live"),
            ("LLM_BASE_URL", server.url),
            ("LLM_API_KEY", "sk-test-0123456789abcdef"),
            ("LLM_MODEL", "fake-model"),
            ("LLM_TIMEOUT", "10"),
        ]:
            monkeypatch.setenv(name, value)
        result = run_file(next((ROOT / "lessons").glob("19-*.py")), solution=True)
        bodies = [r.body for r in server.posts("/v1/chat/completions")]
    capsys.readouterr()
    assert result.error is None and not [c for c in result.checks if c.status == "failed"]
    formats = [b["response_format"] for b in bodies if "response_format" in b]
    assert len(formats) == len(bodies) >= 3  # every live call asked for a format
    assert {f["json_schema"]["name"] for f in formats} == {"facts", "winner"}
    assert all(f["json_schema"]["strict"] and strict_problems(f["json_schema"]["schema"]) == [] for f in formats)
    assert any(b.get("tools") for b in bodies)  # the agent's calls carry tools and a format
