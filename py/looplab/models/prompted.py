"""Tool calling for models without native tools: the tools go in the prompt, the reply is one JSON object.

    model = prompted(chat_model(endpoint))                # JSON actions
    model = prompted(chat_model(endpoint), react=True)    # ReAct: every action carries a "thought"

The model answers with exactly one of
    {"type": "tool_call", "thought": "...", "name": "<tool>", "arguments": {...}}
    {"type": "final_answer", "thought": "...", "answer": "..."}
and the adapter turns it into an ordinary assistant message (a tool call with an id of ours, or
text), keeping `thought` on it so the trace shows it. Memory stays in chat format; on the way
out each tool message becomes a user message "Tool result from <name>: ...", and each earlier
action is shown to the model in the JSON it is asked to write.

A reply that is not such an object is answered with a corrective message, up to `repairs`
times within the same call; then the call raises ModelError and the run stops with `error`.
The `usage` of every inner call (repairs too) is added up on the message, for budget.py.
A reply the token limit cut in the middle of its JSON is not repaired (the next try would be cut
too): it raises ModelError at once, naming the limit. (A cut reply with no JSON begun is a format
problem, and is repaired like any other.)

`action_schema(tools)` is the same two forms as a JSON schema, one branch per tool with that
tool's parameters: an engine that can constrain its output to a schema (llama.cpp turns it into
a grammar) then writes only replies `parse_action` accepts, naming only listed tools.
"""

import json
import re
import uuid
from collections.abc import Callable

from ..budget import add_usage
from ..messages import text_of
from .errors import ModelError
from .limits import RAISE_IT, limit_text

JSON_RULES = """You can use these tools:
{tools}

Answer with exactly one JSON object and nothing else, in one of these two forms:
{{"type": "tool_call", "name": "<tool name>", "arguments": {{<arguments>}}}}
{{"type": "final_answer", "answer": "<your answer>"}}
Rules:
- Use only the tools listed above. If none of them fits, say so in a final_answer.
- Call one tool at a time. Its result comes back as "Tool result from <tool name>: ...".
- If an argument a tool needs is missing, ask the user for it in a final_answer instead of guessing.
- Never write a tool result yourself: wait for the one that comes back."""

REACT_RULES = """You can use these tools:
{tools}

Before each action, give a short reason (one or two sentences) as the "thought": what you know,
what is missing, what you do next. Answer with exactly one JSON object and nothing else, in one
of these two forms, writing the "thought" before the tool or the answer:
{{"type": "tool_call", "thought": "<short reason>", "name": "<tool name>", "arguments": {{<arguments>}}}}
{{"type": "final_answer", "thought": "<short reason you can answer now>", "answer": "<your answer>"}}
Rules:
- Use only the tools listed above. If none of them fits, say so in a final_answer.
- Call one tool at a time. Its result comes back as "Tool result from <tool name>: ...".
- If an argument a tool needs is missing, ask the user for it in a final_answer instead of guessing.
- Never write an observation or a tool result yourself: wait for the one that comes back."""


def describe_tools(tools: list[dict]) -> str:
    """One line per tool: name, description and its parameters as JSON schema."""
    lines = []
    for tool in tools:
        fn = tool.get("function", tool)
        params = json.dumps(fn.get("parameters") or {"type": "object", "properties": {}})
        lines.append(f"- {fn['name']}: {fn.get('description', '')} Parameters: {params}")
    return "\n".join(lines) or "(no tools: answer directly with a final_answer)"


def system_prompt(system: str, tools: list[dict], react: bool = False) -> str:
    """The system message: the lesson's own text, then the tools and the answer format."""
    rules = (REACT_RULES if react else JSON_RULES).format(tools=describe_tools(tools))
    return f"{system}\n\n{rules}" if system else rules


def render(messages: list[dict], tools: list[dict], react: bool = False) -> list[dict]:
    """Chat-format memory as plain messages for a model without tools (system, user, assistant only)."""
    names = {}  # call id -> tool name, to say whose result a tool message is
    system = "\n\n".join(text_of(m.get("content")) or "" for m in messages if m.get("role") == "system")
    out = [{"role": "system", "content": system_prompt(system, tools, react)}]
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                names[call.get("id")] = (call.get("function") or {}).get("name", "?")
            out.append({"role": "assistant", "content": action_text(message, react)})
        elif role == "tool":
            name = names.get(message.get("tool_call_id"), "the tool")
            out.append({"role": "user", "content": f"Tool result from {name}: {text_of(message.get('content'))}"})
        elif role != "system":
            out.append({"role": "user", "content": text_of(message.get("content")) or ""})
    return out


def action_text(message: dict, react: bool) -> str:
    """An earlier assistant message written back in the JSON the model is asked to use."""
    thought = {"thought": message.get("thought") or ""} if react else {}
    calls = message.get("tool_calls") or []
    if not calls:
        return json.dumps({"type": "final_answer", **thought, "answer": message.get("content") or ""})
    fn = calls[0].get("function") or {}
    try:
        arguments = json.loads(fn.get("arguments") or "{}")
    except (TypeError, ValueError):
        arguments = fn.get("arguments")
    return json.dumps({"type": "tool_call", **thought, "name": fn.get("name"), "arguments": arguments})


def parse_action(text: str | None) -> tuple[dict | None, str | None]:
    """A reply's text as an assistant message, or (None, what is wrong with it)."""
    if not text or not text.strip():
        return None, "the reply was empty"
    candidate = text.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", candidate, re.S)
    if fenced:
        candidate = fenced.group(1).strip()
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0 or end < start:
        return None, "the reply had no JSON object"
    try:
        action = json.loads(candidate[start : end + 1])
    except ValueError as exc:
        return None, f"the JSON could not be read ({exc.msg} at position {exc.pos})"
    if not isinstance(action, dict):
        return None, "the JSON was not an object"
    kind = str(action.get("type", "")).strip().lower()
    thought = action.get("thought")
    extra = {"thought": str(thought)} if thought else {}
    if kind == "final_answer":
        if "answer" not in action:
            return None, 'a final_answer needs an "answer"'
        answer = action["answer"]
        return {
            "role": "assistant",
            "content": answer if isinstance(answer, str) else json.dumps(answer),
            **extra,
        }, None
    if kind == "tool_call":
        name, arguments = action.get("name"), action.get("arguments", {})
        if not isinstance(name, str) or not name:
            return None, 'a tool_call needs a "name" (one of the tools)'
        if not isinstance(arguments, dict):
            return None, 'a tool_call needs "arguments" as a JSON object'
        call = {
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call], **extra}, None
    return None, f'"type" was {action.get("type")!r}; it must be "tool_call" or "final_answer"'


# A small model can write one string forever; a bound keeps every reply short enough to finish.
ARGUMENT_CHARS, ANSWER_CHARS = 200, 600


def action_schema(tools: list[dict], react: bool = False) -> dict:
    """The JSON schema of one action: a call of one of these tools with its parameters, or a final answer."""
    thought = {"thought": {"type": "string", "minLength": 1, "maxLength": ANSWER_CHARS}} if react else {}
    options = []
    for tool in tools:
        fn = tool.get("function", tool)
        arguments = bounded(fn.get("parameters") or {"type": "object", "properties": {}})
        # The Toolbox refuses arguments it does not know: so does the schema, unless the tool says otherwise.
        arguments.setdefault("additionalProperties", False)
        options.append(
            closed({"type": {"const": "tool_call"}, **thought, "name": {"const": fn["name"]}, "arguments": arguments})
        )
    options.append(
        closed(
            {
                "type": {"const": "final_answer"},
                **thought,
                "answer": {"type": "string", "minLength": 1, "maxLength": ANSWER_CHARS},
            }
        )
    )
    return options[0] if len(options) == 1 else {"anyOf": options}


def bounded(schema):
    """A copy of a schema whose strings have a maxLength (ARGUMENT_CHARS unless they have their own)."""
    if isinstance(schema, list):
        return [bounded(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: bounded(value) if key in ("items", "anyOf", "oneOf", "allOf") else value for key, value in schema.items()
    }
    if "properties" in schema and isinstance(schema["properties"], dict):
        out["properties"] = {name: bounded(sub) for name, sub in schema["properties"].items()}
    kinds = schema.get("type")
    if (kinds == "string" or (isinstance(kinds, list) and "string" in kinds)) and "enum" not in schema:
        out.setdefault("maxLength", ARGUMENT_CHARS)
    return out


def closed(properties: dict) -> dict:
    """An object with exactly these properties, all required, written in this order."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def correction(problem: str, react: bool) -> str:
    """The message sent back when a reply was not a valid action."""
    form = (
        (
            '{"type": "tool_call", "thought": "...", "name": "...", "arguments": {...}} or '
            '{"type": "final_answer", "thought": "...", "answer": "..."}'
        )
        if react
        else ('{"type": "tool_call", "name": "...", "arguments": {...}} or {"type": "final_answer", "answer": "..."}')
    )
    return f"Your last reply could not be used: {problem}. Answer again with exactly one JSON object: {form}"


def prompted(inner: Callable, react: bool = False, repairs: int = 2) -> Callable[[list[dict], list[dict]], dict]:
    """Wrap a plain chat model function (called with no tools) into one that can call tools by JSON."""

    def model(messages: list[dict], tools: list[dict] | None = None) -> dict:
        convo = render(messages, tools or [], react)
        problem, usage = "", None
        for _ in range(repairs + 1):
            reply = inner(convo, [])
            content = reply.get("content") if isinstance(reply, dict) else None
            usage = add_usage(usage, reply.get("usage") if isinstance(reply, dict) else None)
            action, problem = parse_action(content if isinstance(content, str) else None)
            cut = reply.get("cut") if isinstance(reply, dict) else None
            if action is not None:
                extra = {
                    **({"usage": usage} if usage else {}),
                    **({"cut": cut} if cut else {}),
                    **({"prompt": reply["prompt"]} if reply.get("prompt") else {}),
                }  # the local engine's cache figures
                return {**action, **extra}
            if cut == "length" and "{" in (content or ""):  # a JSON action was begun, and the limit ended it
                raise ModelError(
                    f"the model's reply was cut at {limit_text(getattr(inner, 'max_tokens', None))} "
                    f"before its JSON action was complete ({problem}) — {RAISE_IT}",
                    kind="length",
                )
            convo = convo + [
                {"role": "assistant", "content": content or ""},
                {"role": "user", "content": correction(problem, react)},
            ]
        began = " ".join(str(content or "").split())[:80]
        raise ModelError(
            f"the model did not answer in the JSON action format after {repairs + 1} "
            f"tries ({problem}; its last reply began {began!r}) — try another model, or "
            f"LLM_API=chat for a model with native tool calling",
            kind="format",
        )

    model.inner = inner
    return model
