"""Tokens and cost: usage read from every wire shape (or estimated), kept in the model_reply events,
and a Budget that ends a run with step_limit and a detail naming what ran out."""

import pytest

from looplab import Memory, Toolbox, run_agent
from looplab.budget import Budget, Meter, add_usage, read_usage
from looplab.models import call, final, scripted
from looplab.tokens import message_tokens
from looplab.trace import Collector


class SdkUsage:
    """Stands in for an SDK pydantic object: all budget.py asks of it is model_dump()."""

    def __init__(self, **fields):
        self.fields = fields

    def model_dump(self):
        return dict(self.fields)


def test_usage_is_read_from_chat_responses_and_sdk_shapes():
    chat = {
        "prompt_tokens": 12,
        "completion_tokens": 3,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    responses = {
        "input_tokens": 20,
        "output_tokens": 7,
        "total_tokens": 27,
        "output_tokens_details": {"reasoning_tokens": 4},
    }
    assert read_usage(chat) == {"prompt": 12, "completion": 3, "total": 15}
    assert read_usage(responses) == {"prompt": 20, "completion": 7, "total": 27}
    assert read_usage(SdkUsage(prompt_tokens=1, completion_tokens=2, total_tokens=3)) == {
        "prompt": 1,
        "completion": 2,
        "total": 3,
    }
    assert read_usage({"prompt_tokens": 5}) == {"prompt": 5, "completion": 0, "total": 5}  # total left out


def test_usage_that_says_nothing_usable_is_none():
    for junk in (None, "15 tokens", [], {}, {"prompt_tokens": -1}, {"prompt_tokens": True}, {"total_tokens": "9"}):
        assert read_usage(junk) is None, junk
    assert add_usage(None, {"input_tokens": 2, "output_tokens": 1}) == {
        "prompt_tokens": 2,
        "completion_tokens": 1,
        "total_tokens": 3,
    }
    assert add_usage({"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}, None)["total_tokens"] == 3


def test_a_budget_checks_its_numbers_and_needs_prices_for_a_cost():
    with pytest.raises(ValueError, match="needs prices"):
        Budget(cost=0.01)
    with pytest.raises(ValueError, match="0 or more"):
        Budget(tokens=-5)
    with pytest.raises(ValueError, match="must be a number"):
        Budget(tokens="1000")
    assert Budget(price_in=0.15, price_out=0.60).cost_of(1_000_000, 500_000) == pytest.approx(0.45)


def test_a_reply_without_usage_is_estimated_from_what_was_sent_and_marked():
    meter = Meter(Budget(price_in=1.0, price_out=2.0))
    sent = [{"role": "system", "content": "s", "tokens": 40}, {"role": "user", "content": "x" * 40}]
    got = meter.count({"role": "assistant", "content": "y" * 8}, sent, [])
    assert got() == {"prompt": 40 + 4 + 10, "completion": 4 + 2, "total": 60, "estimated": True, "cost": 0.000066}
    reported = meter.count(
        {"role": "assistant", "content": "z", "usage": {"prompt_tokens": 100, "completion_tokens": 10}}, sent, []
    )
    assert reported() == {"prompt": 100, "completion": 10, "total": 110, "cost": 0.00012}
    assert meter.totals() == {"prompt": 154, "completion": 16, "total": 170, "cost": 0.000186, "estimated": True}


def tools() -> Toolbox:
    box = Toolbox()
    box.register("ping", "Ping.", None, lambda: "pong")
    return box


def with_usage(reply: dict, prompt: int, completion: int) -> dict:
    return {
        **reply,
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


PINGS = [with_usage(call("ping"), 400, 20) for _ in range(5)] + [with_usage(final("done"), 500, 5)]


def test_a_token_budget_ends_the_run_between_calls_with_step_limit():
    events, memory = Collector(), Memory("s")
    result = run_agent(
        "ping", scripted(PINGS), tools(), memory, max_steps=10, limits=Budget(tokens=1000), tracer=events
    )
    assert result["stopped"] == "step_limit" and result["steps"] == 3  # 420, 840, 1260: over after 3
    assert result["detail"] == "the token budget of 1,000 is spent: 1,260 tokens in 3 model calls"
    assert result["usage"] == {"prompt": 1200, "completion": 60, "total": 1260, "estimated": False}
    assert len(events.of("model_call")) == 3 and result["tool_calls"] == 3  # the third call's tool still ran
    assert [m["role"] for m in memory.history][-2:] == ["assistant", "tool"]


def test_a_cost_budget_names_the_cost_and_the_usage_is_in_each_reply_event():
    events = Collector()
    limits = Budget(cost=0.0005, price_in=0.5, price_out=1.5)  # a call: 400 * 0.5 + 20 * 1.5 = 230 millionths
    result = run_agent("ping", scripted(PINGS), tools(), Memory("s"), max_steps=10, limits=limits, tracer=events)
    assert result["stopped"] == "step_limit" and result["steps"] == 3
    assert result["detail"] == "the cost budget of 0.0005 is spent: 0.000690 in 3 model calls"
    assert [e["usage"] for e in events.of("model_reply")][0] == {
        "prompt": 400,
        "completion": 20,
        "total": 420,
        "cost": 0.00023,
    }
    assert events.of("stop")[0]["usage"]["cost"] == pytest.approx(0.00069)


def test_a_run_within_its_budget_ends_as_it_would_have_and_reports_what_it_spent():
    result = run_agent("ping", scripted([final("hi")]), tools(), Memory("s"), limits=Budget(tokens=10_000))
    assert result["stopped"] == "final" and result["answer"] == "hi"
    assert result["usage"]["estimated"] is True and result["usage"]["total"] > 0
    plain = run_agent("ping", scripted([final("hi")]), tools(), Memory("s"))
    assert "usage" not in plain  # no limits: the result is as before
    assert plain == {"answer": "hi", "steps": 1, "stopped": "final", "tool_calls": 0}


def test_a_zero_budget_makes_no_call_at_all():
    model = scripted([final("hi")])
    result = run_agent("ping", model, tools(), Memory("s"), limits=Budget(tokens=0))
    assert result["stopped"] == "step_limit" and result["steps"] == 0
    assert model.calls == [] and "0 model calls" in result["detail"]


def test_the_estimate_is_made_only_when_something_needs_it():
    sizes = []
    meter = Meter(None, size=lambda m: sizes.append(m) or 5)
    usage = meter.count({"role": "assistant", "content": "hi"}, [{"role": "user", "content": "x"}], [])
    assert sizes == [] and meter.spent() is None  # no budget, nobody asked: nothing estimated
    assert usage() == {"prompt": 5, "completion": 5, "total": 10, "estimated": True} and len(sizes) == 2
    assert usage() == meter.totals() | {"estimated": True} and len(sizes) == 2  # computed once


def test_the_estimate_counts_the_tool_schemas_sent_with_every_call():
    events = Collector()
    memory = Memory({"role": "system", "content": "s", "tokens": 10})
    run_agent("ping", scripted([final("hi")]), tools(), memory, tracer=events)
    usage = events.of("model_reply")[0]["usage"]
    sent = events.of("model_call")[0]["context_tokens"]
    assert usage["estimated"] is True and usage["prompt"] > sent  # the tools are extra
    assert usage["completion"] == message_tokens({"role": "assistant", "content": "hi"})
