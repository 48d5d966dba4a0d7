"""The local model's engine as a program: llama-server, reached from CPython (LOOPLAB_LOCAL_URL).

In the page the local model is llama.cpp's server loop compiled to WebAssembly (wllama, in
web/src/page/model/localengine.js), asked with OpenAI-style chat requests by local.py. llama-server
is the same loop as a program. With LOOPLAB_MODEL=local and LOOPLAB_LOCAL_URL=http://127.0.0.1:8080
(a `llama-server -m model.gguf --jinja`), CPython sends it the very requests the page's engine
gets and reads its replies the way the page does: the same prompts and constraints (the model's
native tools when its chat template knows them, else the JSON action schema), greedy unless a
temperature is given, thinking turned off, the prompt's KV cache kept between steps. So the
page's local path runs and is measured without a browser (bench/local_agent.py).
"""

import json
import re
from collections.abc import Callable

from ..http import NetworkError, get_json, post_json

THINKING = {"enable_thinking": False}  # as the page's engine asks (Qwen3's chat template)


def server_ask(base_url: str, timeout: float = 600.0, temperature: float = 0.0) -> Callable[[str, dict], dict]:
    """An `ask(kind, request) -> answer` for local_model that puts the page engine's requests to a llama-server."""
    base = base_url.rstrip("/").removesuffix("/v1")

    def ask(kind: str, request: dict) -> dict:
        if kind != "model":
            return {"error": f"llama-server answers model requests, not {kind!r}"}
        try:
            return describe(base, timeout) if request.get("op") == "describe" else chat(base, request, timeout)
        except NetworkError as exc:
            return {"error": f"llama-server at {base} did not answer ({exc})", "kind": "setup"}

    def chat(base: str, request: dict, timeout: float) -> dict:
        body = {key: value for key, value in request.items() if key != "op"}
        body = {
            "cache_prompt": True,
            **body,
            "chat_template_kwargs": {**THINKING, **(body.get("chat_template_kwargs") or {})},
            "temperature": temperature,
            "stream": False,
        }
        status, _, text = post_json(f"{base}/v1/chat/completions", body, timeout=timeout)
        if status != 200:
            return {"error": f"llama-server answered HTTP {status}: {text[:300]}"}
        reply = json.loads(text)
        choice = (reply.get("choices") or [{}])[0]
        said = choice.get("message") or {}
        message = {"role": "assistant", "content": said.get("content")}
        if said.get("tool_calls"):
            message["tool_calls"] = said["tool_calls"]
        if said.get("reasoning_content"):
            message["thought"] = said["reasoning_content"]
        t = reply.get("timings") or {}
        timings = {
            "prompt_tokens": t.get("prompt_n"),
            "prompt_cached": t.get("cache_n"),
            "prompt_ms": t.get("prompt_ms"),
            "tokens": t.get("predicted_n"),
            "generate_ms": t.get("predicted_ms"),
        }
        return {"message": message, "finish_reason": choice.get("finish_reason"), "timings": timings}

    return ask


def describe(base: str, timeout: float) -> dict:
    """What the page's engine says of its model: its name and whether its chat template renders tools."""
    status, _, text = get_json(f"{base}/props", timeout=timeout)
    props = json.loads(text) if status == 200 else {}
    template = props.get("chat_template") or ""
    path = str(props.get("model_path") or "model.gguf")
    return {
        "model": path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".gguf"),
        "native_tools": bool(re.search(r"\btools\b", template)),  # the page's test (localengine.js)
    }
