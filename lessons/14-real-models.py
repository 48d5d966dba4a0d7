# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: the same loop against a real endpoint (raw HTTP, the openai SDK, the Responses API)
# ---

# %% [markdown]
# # 14 · Real models: raw HTTP, the openai SDK, the Responses API
#
# Every lesson so far ran on prepared replies or a fake brain, and every one would have run the
# same on a real model, because a model in Loop Lab is just a function
# `model(messages, tools) -> assistant message`. This lesson opens that function up three ways:
#
# 1. **raw HTTP** to `/chat/completions`: a POST with a JSON body, nothing else;
# 2. the **openai SDK**: the same request, built and parsed by OpenAI's own library;
# 3. the **Responses API** (`/responses`): a newer wire format with *items* instead of messages.
#
# Offline (scripted), each one is handed a **recorded** reply instead of the network, and the
# lesson prints exactly what would have been sent. Switch to live and the same code calls your
# endpoint. The settings come from the environment (in the page: Settings), never from the code:
# `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`.

# %%
import json
import os
from looplab import Toolbox, Memory, run_agent, printer, Collector
from looplab.trace import fan_out
from looplab.models import model_mode
from looplab.models.chat import chat_payload, read_chat_reply, wire_message
from looplab.models.responses import responses_payload, read_output, OUTPUT_KEY
from looplab.trace import redact_text
from looplab import expect

live = model_mode() == "live"
if live:
    from looplab import http
    BASE_URL = os.environ.get("LLM_BASE_URL", "").rstrip("/")
    API_KEY = os.environ.get("LLM_API_KEY", "")
    MODEL = os.environ.get("LLM_MODEL", "")
else:
    BASE_URL, API_KEY, MODEL = "http://offline.invalid/v1", "sk-offline-example-0000", "offline-model"
print("endpoint:", BASE_URL, "| model:", MODEL, "| key:", redact_text(API_KEY, [API_KEY]) if API_KEY else "(none)")

box = Toolbox()

@box.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

TASK = "What is 1002 + 4002? Use the add tool."

# %% [markdown]
# ## The recorded replies
#
# A chat completion is a JSON object; the reply message sits in `choices[0].message`. These two
# were shaped on the real API's answers: first a tool call, then the text.

# %%
def completion(message, finish_reason):
    return {"id": "chatcmpl-rec", "object": "chat.completion", "created": 1700000000, "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
            "usage": {"prompt_tokens": 60, "completion_tokens": 20, "total_tokens": 80}}

RECORDED_CHAT = [
    completion({"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_rec1", "type": "function",
         "function": {"name": "add", "arguments": "{\"a\": 1002, \"b\": 4002}"}}]}, "tool_calls"),
    completion({"role": "assistant", "content": "1002 + 4002 = 5004."}, "stop"),
]

# %% [markdown]
# ## 1 · Raw HTTP
#
# A request is a URL, headers and a body:
#
# - `POST {LLM_BASE_URL}/chat/completions`;
# - headers `Content-Type: application/json` and `Authorization: Bearer <key>`;
# - a body with the `model`, the `messages` and (if any) the `tools`.
#
# The messages in our memory may carry fields the API does not accept (a `tokens` count, a
# `thought`): they are bookkeeping and must not go over the wire. `wire_message` keeps only
# what each role may send.
#
# ## Exercise 1: build the request
#
# Write `build_request(messages, tools)` returning `(url, headers, body)`. Leave `tools` out of
# the body when there are none.

# %% tags=["exercise"]
def build_request(messages, tools):
    """The (url, headers, body) of one POST to the chat completions endpoint."""
    url = BASE_URL + "/chat"
    headers = {"Content-Type": "application/json"}
    body = {"messages": messages, "tools": tools}
    return url, headers, body

# %% [markdown] tags=["hint"]
# Compare with the three bullets above: the path, the two headers (the key only when there is
# one), and the body's three parts. `wire_message(m)` cleans one message.

# %% [markdown] tags=["hint"]
# The body starts as `{"model": MODEL, "messages": [wire_message(m) for m in messages]}`; add
# `"tools"` only `if tools:`. The key goes in as `f"Bearer {API_KEY}"`.

# %% [markdown] tags=["hint"]
# ```python
# def build_request(messages, tools):
#     url = BASE_URL + "/chat/completions"
#     headers = {"Content-Type": "application/json"}
#     if API_KEY:
#         headers["Authorization"] = f"Bearer {API_KEY}"
#     body = {"model": MODEL, "messages": [wire_message(m) for m in messages]}
#     if tools:
#         body["tools"] = tools
#     return url, headers, body
# ```

# %% tags=["wrong"]
# wrong: posts to /chat instead of /chat/completions
# expect: /chat/completions
# patch:
# -    url = BASE_URL + "/chat/completions"
# +    url = BASE_URL + "/chat"

# %% tags=["wrong"]
# wrong: always sends a tools list, empty or not
# expect: leave 'tools' out
# patch:
# -    body = {"model": MODEL, "messages": [wire_message(m) for m in messages]}
# -    if tools:
# -        body["tools"] = tools
# +    body = {"model": MODEL, "messages": [wire_message(m) for m in messages], "tools": tools}

# %% tags=["wrong"]
# wrong: sends the memory's messages as they are, bookkeeping fields and all
# expect: wire_message
# patch:
# -    body = {"model": MODEL, "messages": [wire_message(m) for m in messages]}
# +    body = {"model": MODEL, "messages": messages}

# %% tags=["solution"]
def build_request(messages, tools):
    """The (url, headers, body) of one POST to the chat completions endpoint."""
    url = BASE_URL + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    if API_KEY:
        headers["Authorization"] = f"Bearer {API_KEY}"
    body = {"model": MODEL, "messages": [wire_message(m) for m in messages]}
    if tools:
        body["tools"] = tools
    return url, headers, body

# %% [markdown]
# ## Exercise 2: read the reply
#
# Write `read_reply(data)`: from a decoded chat completion, return the assistant message with
# `role`, `content` and, only if present, `tool_calls`.

# %% tags=["exercise"]
def read_reply(data):
    """The assistant message in a decoded chat completion."""
    return data["choices"][0]

# %% [markdown] tags=["hint"]
# Look at `RECORDED_CHAT` above: the message sits one level deeper than the choice, and it carries
# fields the loop has no use for.

# %% [markdown] tags=["hint"]
# The message is under the first choice. Build a new dict with its `role` and `content`, and copy
# `tool_calls` only when the message has some.

# %% [markdown] tags=["hint"]
# ```python
# def read_reply(data):
#     message = data["choices"][0]["message"]
#     reply = {"role": "assistant", "content": message.get("content")}
#     if message.get("tool_calls"):
#         reply["tool_calls"] = message["tool_calls"]
#     return reply
# ```

# %% tags=["wrong"]
# wrong: returns the API's message as it is, with every field it carries
# expect: keep only role and content
# replaces: read_reply
def read_reply(data):
    return data["choices"][0]["message"]

# %% tags=["wrong"]
# wrong: always adds a tool_calls key, None for a text reply
# expect: tool_calls when there are some
# replaces: read_reply
def read_reply(data):
    message = data["choices"][0]["message"]
    return {"role": "assistant", "content": message.get("content"), "tool_calls": message.get("tool_calls")}

# %% tags=["solution"]
def read_reply(data):
    """The assistant message in a decoded chat completion."""
    message = data["choices"][0]["message"]
    reply = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        reply["tool_calls"] = message["tool_calls"]
    return reply

# %% [markdown]
# The model function is then a few lines. `post` is the transport: offline, a stand-in that
# records the request and answers from the recording; live, `looplab.http.post_json`, which
# uses urllib in CPython and a synchronous XHR in the browser.

# %% [markdown] tags=["predict"]
# The run below makes two requests. The second body's `messages`: what follows the system and
# user messages?
#
# - [ ] only the text "5004", as a user message
# - [x] the assistant message with the tool call `call_rec1`, then a `tool` message with id `call_rec1` and "5004"
# - [ ] nothing new: the server remembers the first request
#
# The endpoint keeps nothing between requests, so the whole exchange is sent again, and the
# result travels in a `tool` message under the id of the call it answers.

# %%
sent_raw = []

def offline_post(replies):
    queue = [json.dumps(r) for r in replies]
    def post(url, body, headers, timeout=60):
        sent_raw.append({"url": url, "headers": headers, "body": body})
        return 200, {"content-type": "application/json"}, queue.pop(0)
    return post

def recording(post):
    def post_and_record(url, body, headers, timeout=60):
        sent_raw.append({"url": url, "headers": headers, "body": body})
        return post(url, body, headers, timeout)
    return post_and_record

def raw_chat_model(post):
    def model(messages, tools):
        url, headers, body = build_request(messages, tools)
        status, _, text = post(url, body, headers, 60)
        if not 200 <= status < 300:
            raise RuntimeError(redact_text(f"HTTP {status} from {url}: {text[:200]}", [API_KEY]))
        return read_reply(json.loads(text))
    return model

post = recording(http.post_json) if live else offline_post(RECORDED_CHAT)
try:
    raw_events = Collector()
    raw_run = run_agent(TASK, raw_chat_model(post), box, Memory("Be concise."),
                        tracer=fan_out(printer(), raw_events))
except Exception as exc:
    raw_run, raw_events = {"stopped": f"raised {type(exc).__name__}: {exc}", "answer": None}, Collector()
print(raw_run)

# %% [markdown]
# What went over the wire (the key shown redacted, as every log must):

# %%
for request in sent_raw:
    print("POST", request["url"])
    print("  ", redact_text(json.dumps(request["headers"]), [API_KEY] if API_KEY else []))
    print("  ", json.dumps(request["body"])[:400])

# %% [markdown]
# Look at the second body: the assistant's tool call and the `tool` message with the same id,
# `call_rec1`. The API checks that pairing; break it and the request fails with a 400.
#
# ## 2 · The openai SDK
#
# The SDK builds the same request and parses the same reply into typed objects. Wrapped as a
# model function (this is `looplab.models.sdk.openai_model_fn`):
#
# ```python
# def openai_model_fn(client, model):
#     def call(messages, tools):
#         response = client.chat.completions.create(model=model, messages=messages, tools=tools)
#         return response.choices[0].message.model_dump(exclude_none=True)
#     return call
# ```
#
# Offline, the client gets a transport that answers from the recording, so the SDK really runs,
# builds its request and parses the reply, without a network. That makes it a trusted
# reference: the body your `build_request` wrote should be **exactly** the body the SDK sends.
#
# Why the cell below imports `httpx2`, a library no lesson used before: the openai SDK does not
# open connections itself. It sends every request through **httpx2**, the HTTP client it is built
# on (the successor of `httpx`), and an httpx2 client takes a **transport**, the one part that
# actually sends. `httpx2.MockTransport(answer)` is a transport that hands each request to our
# function `answer` instead of the network: we record the body the SDK built and return the
# recorded reply. Live, the SDK gets its usual transport (in the browser, Loop Lab's
# `httpx2_jsfetch`, which sends with the browser's own XHR); nothing else changes.

# %%
try:
    import httpx2
    import openai
    from looplab.models.sdk import openai_model_fn, sdk_model
    have_sdk = True
except ImportError as exc:
    have_sdk = False
    print("The openai SDK is not installed here, so this part is skipped:", exc)

sent_sdk = []
if have_sdk:
    if live:
        sdk_fn = sdk_model(BASE_URL, API_KEY, MODEL)
    else:
        recorded = list(RECORDED_CHAT)
        def answer(request):
            sent_sdk.append(json.loads(request.content))
            return httpx2.Response(200, json=recorded.pop(0))
        client = openai.OpenAI(base_url=BASE_URL, api_key=API_KEY,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(answer)))
        sdk_fn = openai_model_fn(client, MODEL)
    sdk_run = run_agent(TASK, sdk_fn, box, Memory("Be concise."))
    print(sdk_run)
    for body in sent_sdk:
        print("  SDK sent:", json.dumps(body)[:300])
else:
    sdk_run = None

# %% [markdown]
# ## 3 · The Responses API
#
# The Responses API speaks in **items**. The conversation goes in `input`: user and system
# messages as before, but a tool call becomes an item `{"type": "function_call", "call_id",
# "name", "arguments"}` and its result `{"type": "function_call_output", "call_id", "output"}`.
# Tools are flat (`{"type": "function", "name", ...}`, no inner `function`). The reply's
# `output` is a list of items too: `message`, `function_call`, and for reasoning models
# `reasoning` items.
#
# Two rules matter. Match results by **`call_id`** (each item also has an `id`, which names the
# item itself). And send the model's output items back **as they were**, reasoning items
# included, next to the calls they led to; a reasoning model needs them to continue.
# `looplab.models.responses` does both; here is what it sends:

# %%
RECORDED_RESPONSES = [
    {"id": "resp_01", "object": "response", "status": "completed", "model": MODEL, "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I should use add."}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_r1", "name": "add",
         "arguments": "{\"a\": 1002, \"b\": 4002}", "status": "completed"}]},
    {"id": "resp_02", "object": "response", "status": "completed", "model": MODEL, "output": [
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "1002 + 4002 = 5004.", "annotations": []}]}]},
]

sent_responses = []

def responses_fn(replies):
    """Offline: build the real request body, record it, answer from the recording."""
    queue = list(replies)
    def model(messages, tools):
        sent_responses.append(responses_payload(MODEL, messages, tools))
        return read_output(queue.pop(0))
    return model

if live:
    from looplab.models.live import endpoint_from_env
    from looplab.models.responses import responses_model
    responses_run_model = responses_model(endpoint_from_env())
else:
    responses_run_model = responses_fn(RECORDED_RESPONSES)
responses_run = run_agent(TASK, responses_run_model, box, Memory("Be concise."), tracer=printer())
print(responses_run)
for body in sent_responses:
    print(json.dumps(body["input"], indent=1)[:900])

# %% [markdown]
# Three wire formats, one loop: `run_agent` never knew which it was talking to. That is the
# adapter contract of lesson 5 paying off. (A provider may document that some newer models need
# a particular endpoint for tool calling; with an adapter per format, switching is a setting:
# `LLM_API=chat`, `responses`, `sdk` or `prompted`.)

# %%
# More inputs for your two functions: no tools, bookkeeping fields, a text reply.
_, _, no_tools_body = build_request([{"role": "user", "content": "hi"}], [])
_, _, kept_body = build_request([{"role": "system", "content": "Be brief.", "tokens": 400},
                                 {"role": "assistant", "content": None, "thought": "add them",
                                  "tool_calls": RECORDED_CHAT[0]["choices"][0]["message"]["tool_calls"]},
                                 {"role": "tool", "tool_call_id": "call_rec1", "content": "5004", "tokens": 3}],
                                box.schemas())
TEXT_REPLY = completion({"role": "assistant", "content": "Hello.", "refusal": None, "annotations": []}, "stop")
print(no_tools_body)
print(kept_body["messages"])
print(read_reply(TEXT_REPLY))

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference


def requesting(build_fn, messages, tools, key):
    """build_request's URL, headers (the key shown only as whether it is right) and body, for a key."""
    saved = build_fn.__globals__["API_KEY"]
    build_fn.__globals__["API_KEY"] = key
    try:
        url, headers, body = build_fn(messages, tools)
    finally:
        build_fn.__globals__["API_KEY"] = saved
    shown = {k: Said("Bearer <the key>", v == f"Bearer {key}") if k == "Authorization" else v
             for k, v in headers.items()}
    return {"the URL": url, "the headers": shown, "the body": body}


def wire_case(d):
    def message(d):
        role = d.pick(["system", "user", "assistant", "tool"])
        m = {"role": role, "content": d.pick(["Hi.", "", None]) if role == "assistant" else "text"}
        if role == "assistant" and d.maybe():
            m["tool_calls"] = RECORDED_CHAT[0]["choices"][0]["message"]["tool_calls"]
        if role == "tool":
            m["tool_call_id"] = "call_rec1"
        for extra in d.subset(["tokens", "thought", "pos"]):
            m[extra] = 7 if extra != "thought" else "I add."
        return m
    key, messages, tools = d.pick(["", "sk-test-not-a-key-0000"]), d.some(message, 0, 4), d.pick([[], box.schemas()])
    return Case((messages, tools, key), f"the messages {messages}, {'tools' if tools else 'no tools'} and "
                                        f"{'a key' if key else 'no key'}")


REQUESTS = generate(wire_case, count=60, edges=[Case(([], [], ""), "no messages, no tools and no key")])


def completion_case(d):
    message = {"role": "assistant", "content": d.pick([None, "", "Hello."])}
    if d.maybe(0.6):
        message["tool_calls"] = d.pick([[], None, RECORDED_CHAT[0]["choices"][0]["message"]["tool_calls"]])
    for extra in d.subset(["refusal", "annotations", "reasoning_content"]):
        message[extra] = None if extra == "refusal" else [] if extra == "annotations" else "hmm"
    return Case((completion(message, d.pick(["stop", "tool_calls", "length"])),), f"the message {message}")


TWO_CHOICES = completion({"role": "assistant", "content": "First."}, "stop")
TWO_CHOICES["choices"].append({"index": 1, "message": {"role": "assistant", "content": "Second."},
                               "finish_reason": "stop"})
COMPLETIONS = generate(completion_case, count=60, edges=[Case((TWO_CHOICES,), "a completion with two choices")])
# the request goes to /chat/completions
assert sent_raw and sent_raw[0]["url"] == BASE_URL + "/chat/completions", (
    f"the request went to {sent_raw[0]['url'] if sent_raw else None}; use LLM_BASE_URL + '/chat/completions'")
# the body names the model and carries the messages and tools
assert sent_raw and sent_raw[0]["body"].get("model") == MODEL and sent_raw[0]["body"].get("tools"), (
    "the body needs 'model', 'messages' and 'tools'")
# the key travels as a bearer token
assert not API_KEY or (sent_raw and sent_raw[0]["headers"].get("Authorization") == f"Bearer {API_KEY}"), (
    "send the key in an 'Authorization: Bearer <key>' header")
# with no tools, the body has no "tools" key at all
assert "tools" not in no_tools_body and no_tools_body.get("messages") == [{"role": "user", "content": "hi"}], (
    f"build_request gave the body {no_tools_body} for one message and no tools; leave 'tools' out")
# bookkeeping fields (tokens, thought) stay home, the tool message keeps its id
assert "tokens" not in json.dumps(kept_body.get("messages")) and "thought" not in json.dumps(kept_body.get("messages")) \
    and kept_body["messages"][2].get("tool_call_id") == "call_rec1", (
    f"build_request sent {kept_body.get('messages')}; pass each message through wire_message")
# build_request builds the lesson's request for many message lists, with and without tools and a key
assert (request_found := compare(build_request, reference("build_request"), REQUESTS, observe=requesting)), \
    request_found
# a text reply is read with no tool_calls key
assert read_reply(TEXT_REPLY) == {"role": "assistant", "content": "Hello."}, (
    f"read_reply gave {read_reply(TEXT_REPLY)} for a text reply; keep only role and content (and "
    "tool_calls when there are some)")
# read_reply returns the assistant message, not the whole choice
expect(raw_run.get("stopped") == "final" and raw_run.get("answer") == "1002 + 4002 = 5004.",
       f"the raw-HTTP run gave {raw_run}; read_reply should return the message inside the first choice "
       "as an assistant message",
       observed=f"the raw-HTTP run ended {raw_run.get('stopped')!r} with {raw_run.get('answer')!r}; the "
                "recorded replies answer '1002 + 4002 = 5004.'")
# your reply reader agrees with Loop Lab's adapter on every recorded reply
assert all(read_reply(r) == read_chat_reply(r) for r in RECORDED_CHAT + [TEXT_REPLY]), "\n".join(
    f"yours: {read_reply(r)}\nLoop Lab's: {read_chat_reply(r)}" for r in RECORDED_CHAT + [TEXT_REPLY]
    if read_reply(r) != read_chat_reply(r))
# read_reply reads the lesson's message from many completions (no calls, an empty list, extra fields)
assert (reply_found := compare(read_reply, reference("read_reply"), COMPLETIONS)), reply_found
# your request body is exactly the one the openai SDK sends
expect(not have_sdk or [r["body"] for r in sent_raw] == sent_sdk,
       "your bodies differ from the SDK's:\n" + json.dumps([r["body"] for r in sent_raw])[:300] + "\n"
       + json.dumps(sent_sdk)[:300],
       observed=f"your bodies went to the live endpoint ({len(sent_raw)} requests); the SDK's bodies are "
                "recorded only offline, so they were not compared")
# given: the SDK run ended the same way
expect(not have_sdk or sdk_run["answer"] == "1002 + 4002 = 5004.", f"the SDK run gave {sdk_run}",
       observed=f"the SDK run ended {sdk_run and sdk_run.get('stopped')!r} with "
                f"{sdk_run and sdk_run.get('answer')!r}; the recorded replies answer '1002 + 4002 = 5004.'")
# given: the Responses request sends the result with the call's call_id
expect(bool(sent_responses) and {"type": "function_call_output", "call_id": "call_r1", "output": "5004"}
       in sent_responses[-1]["input"],
       "the second Responses request should carry a function_call_output with call_id 'call_r1'",
       observed=f"the live Responses run ended {responses_run['stopped']!r}; its requests are not recorded "
                "here, a recorded run sends the output under call_id 'call_r1'")
# given: the reasoning item is sent back with the call it led to
expect(bool(sent_responses) and [i.get("type") for i in sent_responses[-1]["input"]][2:4] == ["reasoning", "function_call"],
       "the output items (reasoning, then function_call) go back into the next input unchanged",
       observed="a live model's output items depend on the model; the recorded reply has a reasoning item")
# given: every run ended with a reason
assert all(r is None or r.get("stopped") in ("final", "step_limit", "error", "needs_person")
           for r in (raw_run, sdk_run, responses_run)), (raw_run, sdk_run, responses_run)
# given: the run's events never hold the key
assert not API_KEY or API_KEY not in json.dumps(raw_events.events), "the key reached the trace"
