"""The local model: a small real language model running inside the learner's browser page.

The engine (llama.cpp compiled to WebAssembly, in a worker of its own) lives in the page, and
Python reaches it as it reaches the page for anything: `ask_page("model", request)` sends an
OpenAI-style chat request and waits on shared memory for the reply (see page.py). So the model
function here only writes requests and reads replies:

- no tools: a plain chat request, the reply's text is the answer;
- tools, and the model's chat template knows tools: the engine's own OpenAI-style `tools`
  (llama.cpp parses the call, and constrains it once the model starts one);
- tools, and it does not (most tiny models): the JSON actions of `prompted.py`, with the reply
  constrained to `action_schema(tools)`, so every reply is one call of a listed tool or a
  final answer. The Toolbox still checks the arguments: right shape is not right values.

Greedy decoding unless the page's Settings give a temperature. In CPython, LOOPLAB_MODEL=local
sends the same requests to a llama-server when LOOPLAB_LOCAL_URL names one (localserver.py);
otherwise it says plainly that the local model runs in the browser, and how to run one here.
"""

import os
from collections.abc import Callable

from ..page import PageUnavailable, ask_page, in_page
from .chat import wire_message
from .errors import ModelError
from .localserver import server_ask
from .prompted import action_schema, prompted

IN_CPYTHON = (
    "the local model runs in the browser: open Loop Lab's page and choose Model → local. "
    "In CPython, serve a model with Ollama (`ollama serve`, then "
    "LLM_BASE_URL=http://127.0.0.1:11434/v1) or llama.cpp (`llama-server -m model.gguf --jinja`, "
    "then LLM_BASE_URL=http://127.0.0.1:8080/v1), set LLM_MODEL, and run with --live; or set "
    "LOOPLAB_LOCAL_URL=http://127.0.0.1:8080 to send that server exactly what the page's engine gets"
)

NOT_ISOLATED = (
    "the local model needs a cross-origin isolated page (Python waits for the model on "
    "shared memory): {why}. Reload the page; Loop Lab isolates itself on the second load, "
    "or serve it with `make serve`"
)

MAX_TOKENS = 384  # a reply's limit: an action (its strings bounded by action_schema) fits well under it


def prompt_figures(timings: dict | None) -> dict | None:
    """{"evaluated": N, "tokens": M}: of the M prompt tokens, the N the engine read (the others were in its KV cache)."""
    if not isinstance(timings, dict) or not isinstance(timings.get("prompt_tokens"), int):
        return None
    cached = timings.get("prompt_cached") if isinstance(timings.get("prompt_cached"), int) else 0
    return {"evaluated": timings["prompt_tokens"], "tokens": timings["prompt_tokens"] + cached}


def local_model(
    ask: Callable[[str, dict], dict] | None = None, react: bool = False, max_tokens: int = MAX_TOKENS
) -> Callable[[list[dict], list[dict]], dict]:
    """The model function of the page's local model; in CPython, a ModelError that says where it runs.

    `ask(kind, request) -> answer` is how requests reach the engine: the page's `ask_page` by
    default; anything that answers OpenAI-style chat requests the same way will do.
    """
    if ask is None:
        server = os.environ.get("LOOPLAB_LOCAL_URL", "").strip()
        if in_page():
            ask = ask_page
        elif server:
            ask = server_ask(server)
        else:  # CPython, or Pyodide outside Loop Lab's page (Node.js)
            raise ModelError(IN_CPYTHON, kind="setup")
    about: dict = {}

    def request(body: dict) -> dict:
        try:
            answer = ask("model", body)
        except PageUnavailable as exc:
            raise ModelError(NOT_ISOLATED.format(why=exc), kind="setup") from None
        if answer.get("error"):
            raise ModelError(f"the local model: {answer['error']}", kind=answer.get("kind") or "local")
        return answer

    def chat(messages: list[dict], **options) -> dict:
        answer = request(
            {"op": "chat", "messages": [wire_message(m) for m in messages], "max_tokens": max_tokens, **options}
        )
        model.last = answer.get("timings")  # the engine's figures for this reply (bench/local_model.py)
        message = answer.get("message") or {}
        reply = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            reply["tool_calls"] = message["tool_calls"]
        if message.get("thought"):
            reply["thought"] = message["thought"]  # a reasoning model's thinking: shown, never the answer
        if answer.get("finish_reason") == "length":
            reply["cut"] = "length"  # stopped at max_tokens (the field the live adapters use too)
        prompt = prompt_figures(model.last)
        if prompt:
            reply["prompt"] = prompt
        return reply

    def model(messages: list[dict], tools: list[dict] | None = None) -> dict:
        tools = tools or []
        if not tools:
            return chat(messages)
        if not about:
            about.update(request({"op": "describe"}))
        if about.get("native_tools"):
            return chat(messages, tools=tools, tool_choice="auto")
        schema = {"type": "json_schema", "json_schema": {"name": "action", "schema": action_schema(tools, react)}}
        actions = prompted(lambda convo, _tools: chat(convo, response_format=schema), react=react, repairs=1)
        return actions(messages, tools)

    model.about, model.last = about, None
    return model
