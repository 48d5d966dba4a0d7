"""The agent loop: ask the model, run the tools it asks for, send the results back, repeat.

`run_agent` returns `{"answer", "steps", "stopped", "tool_calls", "detail"?}`. A run ends in
exactly one of these ways, all of them in `run_agent` below:

    final         the model replied without asking for a tool: its text is the answer
    step_limit    max_steps model calls were made (or max_tool_calls tools ran) and it still wanted more
    error         the model call raised, or its reply was not a usable assistant message
    needs_person  the model asked for a tool that needs approval, and `approve` did not say yes
    blocked       the input gate refused the task, or the output gate refused the answer

Every tool call stored in memory gets exactly one tool message with its id — also a call that
was refused, skipped (after a stop) or malformed — so the record is always complete.

What a malformed reply does (see `read_reply`):
- not a dict (None, a string, a list)          -> stop `error`, nothing added to memory
- no text and no tool calls                      -> stop `error`, nothing added to memory
- content that is a list of parts                -> the text parts joined
- `tool_calls` a single dict                     -> treated as a list of one
- a call that is not a dict, or has no name      -> an `error:` result naming the tools
- a call with no id, an id that is not text,
  or an id already used                          -> given an id of ours, then an `error:` result
- arguments that are not JSON text (a dict ...)  -> written as JSON text (the Toolbox validates them)
"""

import inspect
import json
import time
from collections.abc import Callable

from .memory import Memory
from .policy import Gate
from .tools import Toolbox
from .trace import Emitter, redact_text


def tool_message(call_id: str, result: str) -> dict:
    """The message that answers one tool call."""
    return {"role": "tool", "tool_call_id": call_id, "content": result}


def run_agent(task: str, model_fn: Callable, toolbox: Toolbox, memory: Memory, max_steps: int = 6,
              approve: Callable | None = None, *, max_tool_calls: int | None = None,
              input_gate: Gate | None = None, output_gate: Gate | None = None,
              budget: int | None = None, tracer: Callable[[dict], None] | None = None) -> dict:
    """Run one task to a stop; see the module docstring for the five ways a run ends."""
    emit = Emitter(tracer)
    emit("run_start", task=task, max_steps=max_steps, tools=toolbox.names())
    ran = 0  # tool calls run so far

    def stop(stopped: str, steps: int, answer=None, detail: str | None = None) -> dict:
        result = {"answer": answer, "steps": steps, "stopped": stopped, "tool_calls": ran}
        if detail:
            result["detail"] = redact_text(detail)
        emit("stop", **{k: v for k, v in result.items() if k != "answer"}, answer=answer)
        return result

    if input_gate is not None:
        verdict = input_gate.check(task)
        if not verdict.ok:
            emit("policy_block", step=0, gate="input", reason=verdict.reason)
            return stop("blocked", 0, detail=verdict.reason)
    memory.add({"role": "user", "content": task})
    used_ids = {c.get("id") for m in memory.history if isinstance(m.get("tool_calls"), list)
                for c in m["tool_calls"] if isinstance(c, dict)}

    for step in range(1, max_steps + 1):
        messages = memory.messages(budget)
        emit("model_call", step=step, messages=len(messages), tools=len(toolbox),
             context=messages, context_tokens=lambda: sum(memory.size(m) for m in messages))
        started = time.perf_counter()
        try:
            raw = model_fn(messages, toolbox.schemas())
        except Exception as exc:
            return stop("error", step, detail=f"the model call failed: {exc}")
        ms = round((time.perf_counter() - started) * 1000, 3)
        reply, broken, problem = read_reply(raw, step, used_ids)
        if problem:
            emit("model_reply", step=step, ms=ms, ok=False, content=problem, tool_calls=0)
            return stop("error", step, detail=problem)
        calls = reply.get("tool_calls", [])
        emit("model_reply", step=step, ms=ms, ok=True, content=reply.get("content"),
             tool_calls=len(calls), thought=reply.get("thought"),
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

        for index, call in enumerate(calls):
            call_id, name, arguments = call["id"], call["function"]["name"], call["function"]["arguments"]
            if max_tool_calls is not None and ran >= max_tool_calls:
                skip(memory, calls[index:], f"the run's limit of {max_tool_calls} tool calls was reached")
                return stop("step_limit", step, detail=f"tool-call limit of {max_tool_calls} reached")
            emit("tool_call", step=step, call_id=call_id, tool=name, arguments=arguments)
            if call_id in broken:
                answer_call(memory, emit, step, call_id, name, broken[call_id], 0.0)
                continue
            if toolbox.needs_approval(name):
                approved, why = ask(approve, name, arguments)
                emit("approval_needed", step=step, call_id=call_id, tool=name, approved=approved)
                if not approved:
                    answer_call(memory, emit, step, call_id, name,
                                f"error: a person has not approved {name}{why}", 0.0)
                    skip(memory, calls[index + 1:], f"the run stopped to ask a person about {name}")
                    return stop("needs_person", step, detail=f"{name} needs a person's approval{why}")
            started = time.perf_counter()
            result = toolbox.run(name, arguments)
            ran += 1
            answer_call(memory, emit, step, call_id, name, result, time.perf_counter() - started)

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


def ask(approve: Callable | None, name: str, arguments) -> tuple[bool, str]:
    """Ask the approval callback, `approve(name)` or `approve(name, arguments)`; it fails closed."""
    if approve is None:
        return False, ""
    try:
        wants_args = len(inspect.signature(approve).parameters) >= 2
    except (TypeError, ValueError):
        wants_args = False
    try:
        return bool(approve(name, arguments) if wants_args else approve(name)), ""
    except Exception as exc:
        return False, f" (the approval check failed: {exc})"


def read_reply(raw, step: int, used_ids: set) -> tuple[dict, dict[str, str], str | None]:
    """A model's reply as a clean assistant message, its broken calls (id -> error text), or why it cannot be one."""
    if not isinstance(raw, dict):
        return {}, {}, f"the model's reply was {type(raw).__name__}, not an assistant message dict"
    reply = {k: v for k, v in raw.items() if k not in ("role", "content", "tool_calls")}
    reply["role"] = "assistant"
    reply["content"] = text_of(raw.get("content"))
    calls = raw.get("tool_calls") or []
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list):
        return {}, {}, f"the model's tool_calls was {type(calls).__name__}, not a list"
    if not calls and not (reply["content"] or "").strip():
        return {}, {}, "the model's reply had no text and no tool calls"
    broken = {}
    if calls:
        reply["tool_calls"], broken = read_calls(calls, step, used_ids)
    return reply, broken, None


def text_of(content) -> str | None:
    """A message's content as text: None stays None, content parts are joined, anything else is JSON."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": "..."}, {"type": "image_url"}]
        return "".join(str(p.get("text") or "") if isinstance(p, dict) else str(p) for p in content)
    return json.dumps(content, default=str)


def arguments_text(arguments) -> str:
    """Tool-call arguments as the JSON text memory holds (a dict, or any other value, is encoded)."""
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, default=str)
    except ValueError:  # a circular structure
        return json.dumps(str(arguments))


def read_calls(calls: list, step: int, seen: set) -> tuple[list[dict], dict[str, str]]:
    """Normalise tool calls; malformed ones get an id of ours and an error text to answer with.

    `seen` holds the ids already in memory (it is updated), so an id is never answered twice.
    """
    out, broken = [], {}
    sent = {c.get("id") for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)}
    for i, call in enumerate(calls, start=1):
        problem = None
        if not isinstance(call, dict):
            call, problem = {}, "error: the tool call was not an object; send {\"id\", \"function\": {\"name\", \"arguments\"}}"
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        name, arguments = fn.get("name"), arguments_text(fn.get("arguments"))
        call_id, why = call.get("id"), id_problem(call.get("id"), seen)
        if why:
            call_id = f"call_{step}_{i}"
            while call_id in seen or call_id in sent:  # never an id a later call of this reply has
                call_id += "_"
            problem = problem or f"error: the tool call {why}; it was not run — call the tool again"
        if not isinstance(name, str) or not name:
            problem = problem or "error: the tool call has no function name; name one of the tools"
            name = "?"
        seen.add(call_id)
        out.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
        if problem:
            broken[call_id] = problem
    return out, broken


def id_problem(call_id, seen: set) -> str | None:
    """Why a call's id cannot be used (None when it can): missing, not text, or already used."""
    if call_id is None or call_id == "":
        return "had no id"
    if not isinstance(call_id, str):
        return f"had an id that is not text ({call_id!r})"
    return f"reused the id {call_id!r}" if call_id in seen else None
