"""What a run spends — tokens, and money at the caller's prices — and the budget that ends it.

    limits = Budget(tokens=20_000, cost=0.05, price_in=0.15, price_out=0.60,   # prices per million tokens
                    price_cached=0.075)                                       # cached prompt tokens
    result = run_agent(task, model, box, memory, limits=limits)
    result["usage"]   # {"prompt": 1830, "completion": 212, "total": 2042, "cost": 0.000402, "estimated": False}

Each model call's usage comes from its reply: chat completions' `usage.prompt_tokens /
completion_tokens / total_tokens`, the Responses API's `usage.input_tokens / output_tokens /
total_tokens`, or the openai SDK's objects of either shape (`read_usage`). The prompt tokens a
provider served from its prompt cache (`prompt_tokens_details.cached_tokens`, Responses'
`input_tokens_details.cached_tokens`) are part of the prompt count, reported as `cached`, and
priced at `price_cached` (the provider's cached-input price; the full input price when not
given). A reply without usage
(a scripted model, a server that does not say) is estimated with tokens.py — the messages sent,
the tool schemas sent, the reply — and marked `"estimated": True`, in the `model_reply` event and
in the totals.

The budget is checked between model calls: when what was spent has reached a limit, run_agent
makes no further call and stops with `step_limit`, its detail naming what ran out. The call that
crosses the limit has already been made, so a run can end a little over its budget; the check
never cuts a reply off, and every tool call of the last reply has run and been answered.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass

from .tokens import count_tokens, message_tokens


@dataclass
class Budget:
    """Limits on one run: `tokens` (prompt + completion, all calls) and `cost` at the given prices.

    `price_in` / `price_out` are per million prompt (input) / completion (output) tokens, in any
    currency; `price_cached` per million prompt tokens served from the provider's cache (None:
    billed as `price_in`). With prices and no limits, a run just reports its cost.
    """

    tokens: int | None = None
    cost: float | None = None
    price_in: float = 0.0
    price_out: float = 0.0
    price_cached: float | None = None

    def __post_init__(self):
        for name in ("tokens", "cost", "price_in", "price_out", "price_cached"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"Budget {name} must be a number, 0 or more (it is {value!r})")
        if self.cost is not None and not (self.price_in or self.price_out):
            raise ValueError(
                "a cost budget needs prices: Budget(cost=..., price_in=..., price_out=...), "
                "per million input and output tokens"
            )

    @property
    def priced(self) -> bool:
        """True when a cost can be computed."""
        return bool(self.price_in or self.price_out)

    def cost_of(self, prompt: int, completion: int, cached: int = 0) -> float:
        """The cost of so many prompt and completion tokens, `cached` of the prompt at the cached price."""
        cached = 0 if self.price_cached is None else min(cached, prompt)  # no cached price: all at price_in
        return (
            (prompt - cached) * self.price_in + cached * (self.price_cached or 0.0) + completion * self.price_out
        ) / 1_000_000


def read_usage(usage) -> dict | None:
    """A reply's usage as {"prompt", "completion", "total"} (and "cached" when some were); None when it says nothing usable.

    Reads chat's prompt_tokens/completion_tokens/total_tokens, the Responses API's
    input_tokens/output_tokens/total_tokens, and the SDK's objects (anything with model_dump).
    `cached` is the part of the prompt served from the provider's cache (its `cached_tokens`).
    """
    if hasattr(usage, "model_dump"):
        usage = usage.model_dump()
    if not isinstance(usage, dict):
        return None
    prompt = count(usage, "prompt_tokens", "input_tokens", "prompt")
    completion = count(usage, "completion_tokens", "output_tokens", "completion")
    if prompt is None and completion is None:
        return None
    prompt, completion = prompt or 0, completion or 0
    total = count(usage, "total_tokens", "total")
    out = {"prompt": prompt, "completion": completion, "total": total if total is not None else prompt + completion}
    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details")
    cached = count(details, "cached_tokens") if isinstance(details, dict) else count(usage, "cached")
    if cached:
        out["cached"] = min(cached, prompt)
    return out


def add_usage(total: dict | None, usage) -> dict | None:
    """Two calls' usage added up (either may be None), in chat's shape: for adapters that call twice."""
    got = read_usage(usage)
    if got is None:
        return total
    before = read_usage(total) or {"prompt": 0, "completion": 0, "total": 0}
    out = {
        "prompt_tokens": before["prompt"] + got["prompt"],
        "completion_tokens": before["completion"] + got["completion"],
        "total_tokens": before["total"] + got["total"],
    }
    if cached := before.get("cached", 0) + got.get("cached", 0):
        out["prompt_tokens_details"] = {"cached_tokens": cached}
    return out


def count(usage: dict, *keys: str) -> int | None:
    """The first of `keys` that holds a whole number of tokens, 0 or more."""
    for key in keys:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


class Meter:
    """What one run has spent so far, call by call, against its Budget (if any).

    A call's estimate is made only when something needs it — the budget check, an event someone
    listens to, the result — so a run with no limits and no tracer pays nothing for it.
    """

    def __init__(self, budget: Budget | None = None, size=message_tokens):
        self.budget = budget
        self.size = size  # a message's tokens (the memory's own counter, for estimates)
        self.calls: list[Callable[[], dict]] = []

    def count(self, raw, sent: list[dict], tools: list[dict] | None) -> Callable[[], dict]:
        """Add one model call; returns its usage (reported, else estimated) as a function, computed once."""
        got: dict = {}

        def usage() -> dict:
            if not got:
                got.update(self.measure(raw, sent, tools))
            return dict(got)

        self.calls.append(usage)
        return usage

    def measure(self, raw, sent: list[dict], tools: list[dict] | None) -> dict:
        """One call's usage: what the reply reports, else an estimate of what was sent and received."""
        got = read_usage(raw.get("usage")) if isinstance(raw, dict) else None
        if got is None:
            prompt = sum(self.size(m) for m in sent) + (count_tokens(json.dumps(tools)) if tools else 0)
            completion = self.size(raw) if isinstance(raw, dict) else count_tokens(str(raw))
            got = {"prompt": prompt, "completion": completion, "total": prompt + completion, "estimated": True}
        if self.budget is not None and self.budget.priced:
            got["cost"] = round(self.budget.cost_of(got["prompt"], got["completion"], got.get("cached", 0)), 8)
        return got

    def totals(self) -> dict:
        """Everything spent so far: prompt, completion, total, cost (when priced), estimated."""
        calls = [usage() for usage in self.calls]
        out = {key: sum(c[key] for c in calls) for key in ("prompt", "completion", "total")}
        if any(c.get("cached") for c in calls):
            out["cached"] = sum(c.get("cached", 0) for c in calls)
        if self.budget is not None and self.budget.priced:
            out["cost"] = round(self.budget.cost_of(out["prompt"], out["completion"], out.get("cached", 0)), 8)
        out["estimated"] = any(c.get("estimated") for c in calls)
        return out

    def spent(self) -> str | None:
        """What ran out, as the stop's detail ("the token budget of 2,000 is spent: ..."), or None."""
        budget = self.budget
        if budget is None or (budget.tokens is None and budget.cost is None):
            return None
        totals = self.totals()
        about = "about " if totals["estimated"] else ""
        calls = f"{len(self.calls)} model call{'s' if len(self.calls) != 1 else ''}"
        if budget.tokens is not None and totals["total"] >= budget.tokens:
            return f"the token budget of {budget.tokens:,} is spent: {about}{totals['total']:,} tokens in {calls}"
        cost = budget.cost_of(totals["prompt"], totals["completion"], totals.get("cached", 0))
        if budget.cost is not None and cost >= budget.cost:
            return f"the cost budget of {budget.cost:g} is spent: {about}{cost:.6f} in {calls}"
        return None
