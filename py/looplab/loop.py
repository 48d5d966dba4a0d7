"""The agent loop: ask the model, run the tools it asks for, send the results back, repeat.

`run_agent` returns `{"answer", "steps", "stopped", "tool_calls", "detail"?}`. A run ends in
exactly one of these ways, all of them in `run_agent` below:

    final         the model replied without asking for a tool: its text is the answer
    step_limit    max_steps model calls were made (or max_tool_calls tools ran, or the `limits`
                  Budget's tokens or cost were spent) and it still wanted more; `detail` says which
    error         the model call raised, or its reply was not a usable assistant message
    needs_person  the model asked for a tool that needs approval, and `approve` did not say yes
    blocked       the input gate refused the task, or the output gate refused the answer

A `tool_gate` (untrusted.py) checks every tool result before the model sees it: a refused result
is replaced by an `error:` text saying it was withheld (the run goes on), one that passes may
come back redacted and fenced as data.

Every tool call stored in memory gets exactly one tool message with its id — also a call that
was refused, skipped (after a stop) or malformed — so the record is always complete.

A spent `limits` Budget is a `step_limit` whose detail names what ran out, not a stop of its own:
like max_steps, an allowance the caller set ran out before the task was done (budget.py counts
each call's usage and is checked between calls). `Toolbox(parallel=True)` runs a reply's
independent calls side by side (parallel.py); they are answered in their original order.

What a malformed reply does (the details are in messages.py, `read_reply`):
- not a dict (None, a string, a list)          -> stop `error`, nothing added to memory
- no text and no tool calls                      -> stop `error`, nothing added to memory
- content that is a list of parts                -> the text parts joined
- `tool_calls` a single dict                     -> treated as a list of one
- a call that is not a dict, or has no name      -> not run; answered with an `error:` result
- a call with no id, an id that is not text,
  or an id already used                          -> given an id of ours, then an `error:` result
- arguments that are not JSON text (a dict ...)  -> written as JSON text (the Toolbox validates them)
"""

import inspect
import time
from collections.abc import Callable

from .budget import Budget, Meter
from .memory import Memory
from .messages import call_ids, read_reply, tool_message
# The rest of reply normalisation, importable from here as it was before messages.py:
from .messages import arguments_text, id_problem, read_calls, text_of  # noqa: F401
from .parallel import run_ahead
from .policy import Gate
from .tools import Toolbox
from .trace import Emitter, redact_text
from .untrusted import screen


def run_agent(task: str, model_fn: Callable, toolbox: Toolbox, memory: Memory, max_steps: int = 6,
              approve: Callable | None = None, *, max_tool_calls: int | None = None,
              input_gate: Gate | None = None, output_gate: Gate | None = None,
              tool_gate: Gate | None = None, budget: int | None = None, limits: Budget | None = None,
              tracer: Callable[[dict], None] | None = None, name: str | None = None) -> dict:
    """Run one task to a stop; see the module docstring for the five ways a run ends.

    `budget` is the context window's size in tokens (memory.py); `limits` what the run may spend;
    `tool_gate` screens tool results before the model reads them (untrusted.py);
    `name` (e.g. "researcher") is put as `agent` on every event, for runs that call each other.
    """
    emit = Emitter(tracer, agent=name, inputs=locals())  # inputs: replay.py may re-run this run from a step
    emit("run_start", task=task, max_steps=max_steps, tools=toolbox.names())
    ran = 0  # tool calls run so far
    meter = Meter(limits, memory.size)  # tokens (and cost) spent so far

    def stop(stopped: str, steps: int, answer=None, detail: str | None = None) -> dict:
        result = {"answer": answer, "steps": steps, "stopped": stopped, "tool_calls": ran}
        if detail:
            result["detail"] = redact_text(detail)
        if limits is not None:
            result["usage"] = meter.totals()
        emit("stop", **{k: v for k, v in result.items() if k != "answer"} | {"usage": meter.totals},
             answer=answer)  # usage: computed only if someone listens
        return result

    if input_gate is not None:
        verdict = input_gate.check(task)
        if not verdict.ok:
            emit("policy_block", step=0, gate="input", reason=verdict.reason)
            return stop("blocked", 0, detail=verdict.reason)
    memory.add({"role": "user", "content": task})
    used_ids = call_ids(memory.history)

    for step in range(1, max_steps + 1):
        if spent := meter.spent():
            return stop("step_limit", step - 1, detail=spent)
        messages, tools = memory.messages(budget), toolbox.schemas()
        emit("model_call", step=step, messages=len(messages), tools=len(toolbox),
             context=messages, context_tokens=lambda: sum(memory.size(m) for m in messages),
             context_sizes=lambda: [memory.size(m) for m in messages], left_out=lambda: memory.left_out(messages))
        started = time.perf_counter()
        try:
            raw = model_fn(messages, tools)
        except Exception as exc:
            return stop("error", step, detail=f"the model call failed: {exc}")
        ms = round((time.perf_counter() - started) * 1000, 3)
        usage = meter.count(raw, messages, tools)
        reply, broken, problem = read_reply(raw, step, used_ids)
        if problem:
            emit("model_reply", step=step, ms=ms, ok=False, content=problem, tool_calls=0, usage=usage)
            return stop("error", step, detail=problem)
        calls = reply.get("tool_calls", [])
        emit("model_reply", step=step, ms=ms, ok=True, content=reply.get("content"),
             tool_calls=len(calls), thought=reply.get("thought"), usage=usage, message=reply,
             **({"cut": reply["cut"]} if reply.get("cut") else {}))  # the token limit ended it early
        memory.add(reply)

        if not calls:
            answer = reply.get("content") or ""
            if output_gate is not None:
                verdict = output_gate.check(answer)
                if not verdict.ok:
                    emit("policy_block", step=step, gate="output", reason=verdict.reason)
                    return stop("blocked", step, detail=verdict.reason)
                answer = verdict.text
            return stop("final", step, answer=answer)

        ahead = run_ahead(toolbox, calls, broken, None if max_tool_calls is None else max_tool_calls - ran,
                          emit, step)  # {} unless Toolbox(parallel=True): see parallel.py
        for index, call in enumerate(calls):
            call_id, name, arguments = call["id"], call["function"]["name"], call["function"]["arguments"]
            if max_tool_calls is not None and ran >= max_tool_calls:
                skip(memory, calls[index:], f"the run's limit of {max_tool_calls} tool calls was reached")
                return stop("step_limit", step, detail=f"tool-call limit of {max_tool_calls} reached")
            if call_id not in ahead:  # a call run ahead had its event when it started
                emit("tool_call", step=step, call_id=call_id, tool=name, arguments=arguments)
            if call_id in broken:
                answer_call(memory, emit, step, call_id, name, broken[call_id], 0.0)
                continue
            if toolbox.needs_approval(name):
                approved, why = ask_for_approval(approve, name, arguments)
                emit("approval_needed", step=step, call_id=call_id, tool=name, approved=approved)
                if not approved:
                    answer_call(memory, emit, step, call_id, name,
                                f"error: a person has not approved {name}{why}", 0.0)
                    skip(memory, calls[index + 1:], f"the run stopped to ask a person about {name}")
                    return stop("needs_person", step, detail=f"{name} needs a person's approval{why}")
            started = time.perf_counter()
            result, seconds = ahead.pop(call_id, None) or (toolbox.run(name, arguments),
                                                           time.perf_counter() - started)
            ran += 1
            if tool_gate is not None:
                result, withheld = screen(tool_gate, name, result)
                if withheld:
                    emit("policy_block", step=step, gate="tool", call_id=call_id, tool=name, reason=withheld)
            answer_call(memory, emit, step, call_id, name, result, seconds)

    return stop("step_limit", max_steps, detail=f"still asking for tools after {max_steps} steps")


def answer_call(memory: Memory, emit: Emitter, step: int, call_id: str, name: str, result: str,
                seconds: float) -> None:
    """Store a call's result in memory and emit its `tool_result` event."""
    memory.add(tool_message(call_id, result))
    emit("tool_result", step=step, call_id=call_id, tool=name, ok=not result.startswith("error:"),
         result=result, ms=round(seconds * 1000, 3))


def skip(memory: Memory, calls: list[dict], why: str) -> None:
    """Answer calls that will not run, so none is left without a result."""
    for call in calls:
        memory.add(tool_message(call["id"], f"error: skipped: {why}"))


def ask_for_approval(approve: Callable | None, name: str, arguments) -> tuple[bool, str]:
    """Ask a person whether a call may run, via `approve(name)` or `approve(name, arguments)`; fails closed."""
    if approve is None:
        return False, ""
    try:
        wants_args = len(inspect.signature(approve).parameters) >= 2
    except (TypeError, ValueError):
        wants_args = False
    try:
        answer = approve(name, arguments) if wants_args else approve(name)
    except Exception as exc:
        return False, f" (the approval check failed: {exc})"
    reason = getattr(answer, "reason", "")  # an approvals.Decision carries the person's reason
    return bool(answer), (f": {reason}" if reason and not answer else "")

