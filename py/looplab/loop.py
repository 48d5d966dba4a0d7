"""The agent loop: ask the model, run the tools it asks for, send the results back, repeat.

`run_agent` returns `{"answer", "steps", "stopped", "tool_calls", "detail"?}`. A run ends in
exactly one of these ways, all of them in `run_agent` below:

    final         the model replied without asking for a tool: its text is the answer
    step_limit    max_steps model calls were made (or max_tool_calls tools ran, or the `limits`
                  Budget's tokens or cost were spent) and it still wanted more; `detail` says which
    error         the model call raised, or its reply was not a usable assistant message (what
                  each kind of malformed reply does is messages.py's table)
    needs_person  the model asked for a tool that needs approval, and `approve` did not say yes
    blocked       the input gate refused the task, or the output gate refused the answer

A spent `limits` Budget is a `step_limit`: like max_steps, an allowance the caller set ran out
before the task was done (budget.py counts usage; it is checked between calls). Every tool call
in memory gets exactly one tool message with its id — also a call refused, skipped (after a stop)
or malformed — so the record is always complete. A `tool_gate` (untrusted.py) screens each result
before the model sees it; `Toolbox(parallel=True)` runs a reply's calls side by side (parallel.py).
"""

import time
from collections.abc import Callable

from .approvals import ask_for_approval
from .budget import Budget, Meter
from .memory import Memory
from .messages import call_ids, read_reply, tool_message
from .parallel import run_ahead
from .policy import Gate
from .seams import ModelFn, Tools
from .trace import Emitter, redact_text
from .untrusted import screen


def run_agent(
    task: str,
    model_fn: ModelFn,
    toolbox: Tools,
    memory: Memory,
    max_steps: int = 6,
    approve: Callable | None = None,
    *,
    max_tool_calls: int | None = None,
    input_gate: Gate | None = None,
    output_gate: Gate | None = None,
    tool_gate: Gate | None = None,
    context_window: int | None = None,
    limits: Budget | None = None,
    tracer: Callable[[dict], None] | None = None,
    name: str | None = None,
) -> dict:
    """Run one task to a stop; see the module docstring for the five ways a run ends.

    `context_window`: the most tokens of memory the model is sent, passed to `memory.messages`;
    `limits`: what the whole run may spend (budget.py); `name` (e.g. "researcher") is put as
    `agent` on every event, for runs that call each other.
    """
    inputs = dict(
        task=task,
        model_fn=model_fn,
        toolbox=toolbox,
        memory=memory,
        max_steps=max_steps,
        approve=approve,
        max_tool_calls=max_tool_calls,
        input_gate=input_gate,
        output_gate=output_gate,
        tool_gate=tool_gate,
        context_window=context_window,
        limits=limits,
        tracer=tracer,
        name=name,
    )
    emit = Emitter(tracer, agent=name, inputs=inputs)  # inputs: replay.py may re-run this run from a step
    emit("run_start", task=task, max_steps=max_steps, tools=toolbox.names())
    ran, meter = 0, Meter(limits, memory.size)  # tool calls run so far; tokens (and cost) spent so far

    def stop(stopped: str, steps: int, answer=None, detail: str | None = None) -> dict:
        result = {"answer": answer, "steps": steps, "stopped": stopped, "tool_calls": ran}
        if detail:
            result["detail"] = redact_text(detail)
        if limits is not None:
            result["usage"] = meter.totals()
        emit(
            "stop", **{k: v for k, v in result.items() if k != "answer"} | {"usage": meter.totals}, answer=answer
        )  # usage: computed only if someone listens
        return result

    if input_gate is not None and not (verdict := input_gate.check(task)).ok:
        emit("policy_block", step=0, gate="input", reason=verdict.reason)
        return stop("blocked", 0, detail=verdict.reason)
    memory.add({"role": "user", "content": task})
    used_ids = call_ids(memory.history)

    for step in range(1, max_steps + 1):
        if spent := meter.spent():
            return stop("step_limit", step - 1, detail=spent)
        messages, tools = memory.messages(context_window), toolbox.schemas()
        emit(
            "model_call",
            step=step,
            messages=len(messages),
            tools=len(toolbox),
            context=messages,
            context_tokens=lambda: sum(memory.size(m) for m in messages),
            context_sizes=lambda: [memory.size(m) for m in messages],
            left_out=lambda: memory.left_out(messages),
        )
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
        emit(
            "model_reply",
            step=step,
            ms=ms,
            ok=True,
            content=reply.get("content"),
            tool_calls=len(calls),
            thought=reply.get("thought"),
            usage=usage,
            message=reply,
            **{k: raw[k] for k in ("cut", "stream", "prompt") if raw.get(k)},
        )  # cut short; how it streamed; cache
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

        ahead = run_ahead(
            toolbox, calls, broken, None if max_tool_calls is None else max_tool_calls - ran, emit, step
        )  # {} unless Toolbox(parallel=True): see parallel.py
        for index, call in enumerate(calls):
            call_id, tool, arguments = call["id"], call["function"]["name"], call["function"]["arguments"]
            if max_tool_calls is not None and ran >= max_tool_calls:
                skip(memory, calls[index:], f"the run's limit of {max_tool_calls} tool calls was reached")
                return stop("step_limit", step, detail=f"tool-call limit of {max_tool_calls} reached")
            if call_id not in ahead:  # a call run ahead had its event when it started
                emit("tool_call", step=step, call_id=call_id, tool=tool, arguments=arguments)
            if call_id in broken:
                answer_call(memory, emit, step, call_id, tool, broken[call_id], 0.0)
                continue
            if toolbox.needs_approval(tool):
                approved, why = ask_for_approval(approve, tool, arguments)
                emit("approval_needed", step=step, call_id=call_id, tool=tool, approved=approved)
                if not approved:
                    answer_call(memory, emit, step, call_id, tool, f"error: a person has not approved {tool}{why}", 0.0)
                    skip(memory, calls[index + 1 :], f"the run stopped to ask a person about {tool}")
                    return stop("needs_person", step, detail=f"{tool} needs a person's approval{why}")
            started = time.perf_counter()
            result, seconds = ahead.pop(call_id, None) or (toolbox.run(tool, arguments), time.perf_counter() - started)
            ran += 1
            if tool_gate is not None:
                result, withheld = screen(tool_gate, tool, result)
                if withheld:
                    emit("policy_block", step=step, gate="tool", call_id=call_id, tool=tool, reason=withheld)
            answer_call(memory, emit, step, call_id, tool, result, seconds)

    return stop("step_limit", max_steps, detail=f"still asking for tools after {max_steps} steps")


def answer_call(memory: Memory, emit: Emitter, step: int, call_id: str, name: str, result: str, seconds: float) -> None:
    """Store a call's result in memory and emit its `tool_result` event."""
    memory.add(tool_message(call_id, result))
    emit(
        "tool_result",
        step=step,
        call_id=call_id,
        tool=name,
        ok=not result.startswith("error:"),
        result=result,
        ms=round(seconds * 1000, 3),
    )


def skip(memory: Memory, calls: list[dict], why: str) -> None:
    """Answer calls that will not run, so none is left without a result."""
    for call in calls:
        memory.add(tool_message(call["id"], f"error: skipped: {why}"))
