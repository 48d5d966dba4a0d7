"""Cached prompt tokens: read from both wire shapes, priced at the cached rate, added up over a run."""

from hypothesis import given, strategies as st

from looplab import Memory, Toolbox, run_agent
from looplab.budget import Budget, add_usage, read_usage
from looplab.models import call, final, scripted


def billed(reply, prompt, completion, cached):
    return {
        **reply,
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def test_cached_tokens_are_read_from_chat_and_responses_and_kept_within_the_prompt():
    chat = {
        "prompt_tokens": 812,
        "completion_tokens": 40,
        "total_tokens": 852,
        "prompt_tokens_details": {"cached_tokens": 512},
    }
    responses = {"input_tokens": 640, "output_tokens": 96, "input_tokens_details": {"cached_tokens": 384}}
    assert read_usage(chat) == {"prompt": 812, "completion": 40, "total": 852, "cached": 512}
    assert read_usage(responses) == {"prompt": 640, "completion": 96, "total": 736, "cached": 384}
    # none cached: no key, as before; more cached than prompt (a broken server): capped at the prompt
    assert "cached" not in read_usage({**chat, "prompt_tokens_details": {"cached_tokens": 0}})
    assert (
        read_usage({"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 99}})[
            "cached"
        ]
        == 10
    )
    assert add_usage(chat, responses)["prompt_tokens_details"] == {"cached_tokens": 896}


def test_cached_tokens_cost_the_cached_price_and_the_full_price_without_one():
    budget = Budget(price_in=0.15, price_out=0.60, price_cached=0.075)
    # 300 uncached at 0.15, 512 cached at 0.075, 40 out at 0.60, per million
    assert budget.cost_of(812, 40, cached=512) == (300 * 0.15 + 512 * 0.075 + 40 * 0.60) / 1e6
    assert Budget(price_in=0.15, price_out=0.60).cost_of(812, 40, cached=512) == (812 * 0.15 + 40 * 0.60) / 1e6


def test_a_run_counts_its_cached_tokens_and_its_cost_uses_them():
    box = Toolbox()
    box.register("ping", "Answer pong.", None, lambda: "pong")
    replies = [
        billed(call("ping"), 1000, 20, 0),
        billed(call("ping"), 1200, 20, 1000),
        billed(final("done"), 1400, 10, 1200),
    ]
    limits = Budget(price_in=1.0, price_out=4.0, price_cached=0.1)
    result = run_agent("ping twice", scripted(replies), box, Memory("sys"), limits=limits)
    usage = result["usage"]
    assert usage["cached"] == 2200 and usage["prompt"] == 3600 and usage["total"] == 3650
    assert usage["cost"] == round((1400 * 1.0 + 2200 * 0.1 + 50 * 4.0) / 1e6, 8)
    full = run_agent("ping twice", scripted(replies), box, Memory("sys"), limits=Budget(price_in=1.0, price_out=4.0))[
        "usage"
    ]["cost"]
    assert full == round((3600 * 1.0 + 50 * 4.0) / 1e6, 8) and usage["cost"] < full


@given(
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.floats(0, 100),
    st.floats(0, 100),
    st.floats(0, 1),
)
def test_caching_never_costs_more_when_the_cached_price_is_lower(
    prompt, completion, cached, price_in, price_out, share
):
    cheaper = Budget(price_in=price_in, price_out=price_out, price_cached=price_in * share)
    plain = Budget(price_in=price_in, price_out=price_out)
    assert cheaper.cost_of(prompt, completion, cached) <= plain.cost_of(prompt, completion, cached) + 1e-12
    assert plain.cost_of(prompt, completion, cached) == plain.cost_of(prompt, completion)
