# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: one tool call in two requests, with call ids and stable error codes, before any loop
# ---

# %% [markdown]
# # 3 · One tool round trip
#
# Before any loop, one complete exchange, slowly. A single tool call takes **two** requests
# to the model:
#
# ```
#  user ──① question──▶ model
#                         │ ② "please call search_local_sources(query=...)"   (a tool call, with an id)
#                         ▼
#                     your program: checks the name is allowed, parses the arguments, runs it
#                         │ ③ the result, marked with the same id
#                         ▼
#                       model ──④ the answer──▶ user
# ```
#
# The model never runs anything. It writes a request; your program decides whether and how to
# run it, and reports back.

# %%
import json
from looplab import Toolbox
from looplab import expect
from looplab.models import pick_model, call, final

# %% [markdown]
# ## A small, fixed corpus
#
# A search over the web would give different results tomorrow. For learning, a dictionary of
# two documents keeps every run the same. The tool has no model in it: ordinary arguments in,
# ordinary JSON-friendly data out. Run it by itself first and make sure the same input always
# gives the same output, before you ever show it to a model.

# %%
DOCUMENTS = {
    "agent-loop": "Agent loops repeat observation, decision, action, and evaluation.",
    "workflow": "Workflows follow code-defined paths and finite branches.",
}

def search_local_sources(query: str) -> dict:
    """Search approved local documents and return at most three matches."""
    wanted = set(query.lower().split())
    matches = []
    for source_id, text in DOCUMENTS.items():
        score = len(wanted & set(text.lower().replace(",", "").replace(".", "").split()))
        if score:
            matches.append({"source_id": source_id, "text": text, "score": score})
    matches.sort(key=lambda m: (-m["score"], m["source_id"]))  # ties broken by id: a stable order
    return {"matches": matches[:3]}

print(search_local_sources("agent loops"))
print(search_local_sources("code paths and loops"))

# %% [markdown]
# The description says what the tool does, where it looks (approved local documents) and how
# much comes back (at most three). The model uses it to decide *when* to call; the schema lets
# your program check the *shape* of the arguments. Whether a document may be read by this user
# is still the function's job: a schema cannot know that.

# %%
box = Toolbox()
box.tool(search_local_sources)
print(json.dumps(box.schemas(strict=True), indent=2))

# %% [markdown]
# ## Request ①: the question and the tools

# %%
model = pick_model([
    call("search_local_sources", id="call_01", query="agent loops"),
    final("The 'agent-loop' source explains it: agent loops repeat observation, decision, "
          "action and evaluation."),
])
messages = [{"role": "user", "content": "Find a source that explains agent loops."}]
first = model(messages, box.schemas())
print(json.dumps(first, indent=2))

# %% [markdown]
# ## ② The reply is a request, not an answer
#
# The assistant message carries `tool_calls`. Each call has an **id**, the tool's **name**,
# and its **arguments as JSON text**. Two things to do with it:
#
# 1. add the assistant message itself to the conversation. The model must see, on the next
#    request, that it asked for this;
# 2. for each call, run the tool, and add a message with role `tool` whose `tool_call_id` is the
#    call's id, so the model can tell which result answers which request.
#
# A name the model made up must never be looked up with `eval` or a dynamic import: only the
# tools in the toolbox can run.

# %%
messages.append(first)
for tool_call in first.get("tool_calls") or []:
    result = box.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
    print(f"ran {tool_call['function']['name']} for call {tool_call['id']}: {result}")
    messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})

# %% [markdown]
# ## ③ → ④ The second request
#
# Same tools, longer conversation. If the model has what it needs, it answers in text.

# %% [markdown] tags=["predict"]
# On its second request, what is the **last** message the model is sent?
#
# - [ ] the user's question, sent again
# - [ ] its own reply asking for `search_local_sources`
# - [x] a `tool` message with the search result and `tool_call_id` `call_01`
# - [ ] nothing new: the model remembers its first request
#
# The model keeps nothing between requests (lesson 6). It learns what the tool found only
# because the program appended the result, marked with the id of the call it answers.

# %%
second = model(messages, box.schemas())
print(second["content"])
for message in messages + [second]:
    print(f"  {message['role']:9} {message.get('tool_call_id') or ''} "
          f"{(message.get('content') or json.dumps(message.get('tool_calls')))[:70]}")

# %% [markdown]
# If the model can answer straight away, the first reply has no `tool_calls` and its text *is*
# the answer: there is no second request. Your code must handle both.
#
# ## Exercise 1: the whole round trip, in one function
#
# Write `round_trip(question, model, box)`: send the question with the tools; if the reply asks
# for tools, add the reply, run each call and add its result **with the call's id**, then ask a
# second time. Return the final text and the message list.
#
# The scripted model below checks its own input on the second request: it only gives the real
# answer if the last message is a `tool` message answering its call. A fake model that checks
# what reached it is how you test a harness without a real model.

# %%
def answer_if_result_arrived(messages, tools):
    """The second reply: only sure of its answer if the search result reached it, with the right id."""
    last = messages[-1]
    asked = [c["id"] for m in messages if m.get("tool_calls") for c in m["tool_calls"]]
    if last.get("role") == "tool" and last.get("tool_call_id") in asked and "agent-loop" in last["content"]:
        return final("The 'agent-loop' document explains agent loops.")
    return final("I never saw the search result, so I cannot name a source.")

def checking_model():
    return pick_model([call("search_local_sources", id="call_77", query="agent loops"),
                       answer_if_result_arrived])

# %% tags=["exercise"]
def round_trip(question, model, box):
    messages = [{"role": "user", "content": question}]
    reply = model(messages, box.schemas())
    if not reply.get("tool_calls"):
        return reply["content"], messages
    messages.append(reply)
    for tool_call in reply["tool_calls"]:
        result = box.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
        messages.append({"role": "tool", "content": result})   # which call does this answer?
    reply = model(messages, box.schemas())
    return reply["content"], messages

answer, trip = round_trip("Find a source that explains agent loops.", checking_model(), box)
print(answer)

# %% [markdown] tags=["hint"]
# Run it and read the answer: the scripted model says it never saw the search result. Look at
# the tool message the starter adds. Which call does it answer?

# %% [markdown] tags=["hint"]
# A tool message needs a `tool_call_id`: the `id` of the call it answers, from
# `tool_call["id"]`. That one key is all that is missing.

# %% [markdown] tags=["hint"]
# ```python
# messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
# ```

# %% tags=["wrong"]
# wrong: answers with the id of the first call for every tool message
# expect: tool messages carry ids
# patch:
# -        messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
# +        messages.append({"role": "tool", "tool_call_id": "call_1", "content": result})
# @@
# -print(answer)

# %% tags=["wrong"]
# wrong: keeps the ids but leaves the model's reply out, so the results answer a call the model never sent
# expect: tool messages carry ids calls were
# patch:
# -    messages.append(reply)
# @@
# -print(answer)

# %% tags=["solution"]
def round_trip(question, model, box):
    messages = [{"role": "user", "content": question}]
    reply = model(messages, box.schemas())
    if not reply.get("tool_calls"):
        return reply["content"], messages
    messages.append(reply)
    for tool_call in reply["tool_calls"]:
        result = box.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
        messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
    reply = model(messages, box.schemas())
    return reply["content"], messages

answer, trip = round_trip("Find a source that explains agent loops.", checking_model(), box)
print(answer)

# %% [markdown]
# ## Codes for programs, sentences for the model
#
# Lesson 2's toolbox answers a failure with a sentence, written for the model: what was wrong
# and what would work. A failure has a second audience: **programs**. A test, a dashboard or an
# alert wants a short, **stable code** it can compare and count, and that does not change when
# someone rewords a message: `unknown_tool`, `invalid_json`, `invalid_arguments`,
# `tool_failure`. So a result carries both. The code is for programs, the sentence is for the
# model, and the details (a stack trace) stay in your own logs, never in either.
#
# ## Exercise 2: a dispatcher with stable codes
#
# Complete `dispatch_tool(name, arguments_json, tools)`, where `tools` maps names to plain
# functions. It returns `{"ok": True, "data": ...}`, or `{"ok": False, "error": <code>,
# "message": <a sentence for the model>}` for each of the four failures, and it never raises.
# Arguments that are JSON but not an object (a list, say) are `invalid_arguments`. The starter
# handles an unknown tool; follow its pattern.

# %% tags=["exercise"]
def dispatch_tool(name, arguments_json, tools):
    tool = tools.get(name)
    if tool is None:
        return {"ok": False, "error": "unknown_tool",
                "message": f"no tool named {name!r}; tools are {', '.join(tools)}"}
    arguments = json.loads(arguments_json)
    return {"ok": True, "data": tool(**arguments)}

# %% [markdown] tags=["hint"]
# Three more things can go wrong after the name is found: the text is not JSON, the JSON does
# not fit the function, or the function itself fails. Catch each where it happens and return
# its code with a sentence.

# %% [markdown] tags=["hint"]
# `json.loads` raises `json.JSONDecodeError`: that is `invalid_json`. Check
# `isinstance(arguments, dict)` before calling. Calling a function with arguments it does not
# take raises `TypeError`: `invalid_arguments`. Any other exception from the call is
# `tool_failure`; put `exc` in the sentence, not a traceback.

# %% [markdown] tags=["hint"]
# ```python
# try:
#     arguments = json.loads(arguments_json)
# except json.JSONDecodeError as exc:
#     return {"ok": False, "error": "invalid_json",
#             "message": f"the arguments are not valid JSON ({exc.msg}); send a JSON object"}
# if not isinstance(arguments, dict):
#     return {"ok": False, "error": "invalid_arguments", "message": "the arguments must be a JSON object"}
# try:
#     return {"ok": True, "data": tool(**arguments)}
# except TypeError as exc:
#     return {"ok": False, "error": "invalid_arguments", "message": f"{name} cannot take these arguments: {exc}"}
# except Exception as exc:
#     return {"ok": False, "error": "tool_failure", "message": f"{name} failed: {exc}"}
# ```

# %% tags=["wrong"]
# wrong: every exception from the call is tool_failure, wrong argument names too
# expect: arguments it does not take raises TypeError
# patch:
# -    except TypeError as exc:
# -        return {"ok": False, "error": "invalid_arguments", "message": f"{name} cannot take these arguments: {exc}"}

# %% tags=["wrong"]
# wrong: no try around json.loads, so broken JSON raises instead of returning invalid_json
# expect: json.loads failed
# patch:
# -    try:
# -        arguments = json.loads(arguments_json)
# -    except json.JSONDecodeError as exc:
# -        return {"ok": False, "error": "invalid_json",
# -                "message": f"the arguments are not valid JSON ({exc.msg}); send a JSON object"}
# +    arguments = json.loads(arguments_json)

# %% tags=["wrong"]
# wrong: the invalid_json result has its code but no sentence for the model
# expect: no 'message' sentence invalid_json
# patch:
# -        return {"ok": False, "error": "invalid_json",
# -                "message": f"the arguments are not valid JSON ({exc.msg}); send a JSON object"}
# +        return {"ok": False, "error": "invalid_json"}

# %% tags=["solution"]
def dispatch_tool(name, arguments_json, tools):
    tool = tools.get(name)
    if tool is None:
        return {"ok": False, "error": "unknown_tool",
                "message": f"no tool named {name!r}; tools are {', '.join(tools)}"}
    try:
        arguments = json.loads(arguments_json)
    except json.JSONDecodeError as exc:
        return {"ok": False, "error": "invalid_json",
                "message": f"the arguments are not valid JSON ({exc.msg}); send a JSON object"}
    if not isinstance(arguments, dict):
        return {"ok": False, "error": "invalid_arguments", "message": "the arguments must be a JSON object"}
    try:
        return {"ok": True, "data": tool(**arguments)}
    except TypeError as exc:
        return {"ok": False, "error": "invalid_arguments", "message": f"{name} cannot take these arguments: {exc}"}
    except Exception as exc:
        return {"ok": False, "error": "tool_failure", "message": f"{name} failed: {exc}"}

# %% [markdown]
# A `TypeError` raised *inside* a tool looks just like a call with the wrong arguments. Loop
# Lab's `Toolbox` tells them apart by checking the arguments against the schema before it
# calls anything.
#
# Three small tests pin the dispatcher down: the tool gives the same order for the same input,
# a valid call finds its tool and keeps its call id, and an unknown tool runs **no** function.
#
# `run_call` wraps the dispatcher's result in the shape the **Responses API** (lesson 14) wants
# back: an item `{"type": "function_call_output", "call_id": ..., "output": <text>}`. It is
# that API's name for what chat completions calls a `tool` message with a `tool_call_id`: the
# result of one call, quoting the call's id. The output is text, so the dict goes in as JSON.

# %%
ran = []  # names of the functions that actually ran

def spy(function):
    def wrapped(**arguments):
        ran.append(function.__name__)
        return function(**arguments)
    return wrapped

def broken(query: str) -> dict:
    raise RuntimeError("the index is corrupt")

TOOLS = {"search_local_sources": spy(search_local_sources), "broken": spy(broken)}

def run_call(tool_call, tools):
    result = dispatch_tool(tool_call["function"]["name"], tool_call["function"]["arguments"], tools)
    return {"type": "function_call_output", "call_id": tool_call["id"], "output": json.dumps(result)}

def attempt(function, *args):
    try:
        return function(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

valid = run_call(call("search_local_sources", id="call_01", query="agent loops")["tool_calls"][0], TOOLS)
ran.clear()
unknown = attempt(dispatch_tool, "delete_everything", "{}", TOOLS)
ran_for_unknown = list(ran)
bad_json = attempt(dispatch_tool, "search_local_sources", "{query: agent}", TOOLS)
bad_args = attempt(dispatch_tool, "search_local_sources", '{"q": "agent"}', TOOLS)
not_object = attempt(dispatch_tool, "search_local_sources", '["agent loops"]', TOOLS)
failure = attempt(dispatch_tool, "broken", '{"query": "x"}', TOOLS)
failures = {"unknown_tool": unknown, "invalid_json": bad_json, "invalid_arguments": bad_args,
            "invalid_arguments for a list": not_object, "tool_failure": failure}
for line in (valid, unknown, bad_json, bad_args, not_object, failure):
    print(line)

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference, scenarios

BENCH = scenarios.Bench(read=("search_local_sources", {"query": "agent loops"}),
                        other=("search_local_sources", {"query": "workflow paths"}))


def round_trips(trip_fn, script):
    """One scenario through a round trip: the answer, what the model was sent, the tools that ran."""
    tools = scenarios.Recorded(box)
    got, messages = trip_fn("Find a source.", script.model(), tools)
    return {"the answer": got, "what the model was sent": scenarios.sent(script), "the tools that ran": tools.ran,
            "the messages it returned": [scenarios.plain(m) for m in messages]}


def dispatching(dispatch_fn, name, arguments_json):
    """What dispatch_tool returns (code, data, whether its sentence says enough) and what it ran."""
    ran_here = []

    def count(text: str) -> int:
        ran_here.append("count")
        return len(text.split())

    def fails(text: str) -> int:
        ran_here.append("fails")
        raise RuntimeError("the index is corrupt")
    out = dispatch_fn(name, arguments_json, {"count": count, "fails": fails})
    message = str(out.get("message", "")) if isinstance(out, dict) else ""
    needs = {"unknown_tool": ("count", "fails"), "invalid_json": ("json",)}.get(out.get("error"), ()) \
        if isinstance(out, dict) else ()
    return {"what it returned": {k: v for k, v in out.items() if k != "message"} if isinstance(out, dict) else out,
            "its message": Said(repr(message)[:80], (len(message.split()) >= 3 or "ok" in out and out["ok"] is True,
                                                     all(w in message.lower() for w in needs))),
            "the functions that ran": ran_here}


DISPATCHES = generate(lambda d: Case((d.pick(["count", "fails", "delete_all", "", "Count"]), d.pick(
    ['{"text": "a b"}', '{"text": ""}', "{text: a}", "", "[1]", '"a b"', "null", '{"txt": "a"}', "{}",
     '{"text": "a", "more": 1}']))), count=90, edges=[
    Case(("count", '{"text": "one two"}'), "a good call"), Case(("delete_all", "{}"), "an unknown tool"),
    Case(("count", "{text: one}"), "arguments that are not JSON"), Case(("count", "[1]"), "a JSON list"),
    Case(("fails", '{"text": "x"}'), "a tool that raises")])

# given: the search gives the same matches in the same order for the same input
assert search_local_sources("agent loops") == search_local_sources("agent loops"), "the order changed between two runs"
# given: the round trip reached a final answer
assert isinstance(answer, str) and answer, f"round_trip returned {answer!r} as the answer"
calls_made = [c["id"] for m in trip if m.get("tool_calls") for c in m["tool_calls"]]
results = [m.get("tool_call_id") for m in trip if m["role"] == "tool"]
# every tool result carries the id of the call it answers
assert results == calls_made, (
    f"the tool messages carry ids {results}, the calls were {calls_made}; each tool message needs "
    "the id of the call it answers")
# round_trip does what the lesson's does in every scenario of the bank (no call, two calls, failures)
assert (trip_found := compare(round_trip, reference("round_trip"), scenarios.bank(BENCH), observe=round_trips)), \
    trip_found
# the search result reached the model's second request
expect("agent-loop" in answer and "never saw" not in answer,
       f"the model answered {answer!r}: on its second request the last message was not a tool "
       "result with its call's id",
       observed=f"the model answered {answer!r}; the scripted model names the 'agent-loop' source "
                "only when the search result reaches it with its call's id")
# given: a valid call finds its tool and keeps the call id
assert isinstance(valid, dict) and valid.get("call_id") == "call_01" and json.loads(valid["output"]).get("ok") is True, (
    f"run_call gave {valid}; a known tool with good arguments should give ok: true")
# given: an unknown tool returns unknown_tool and runs no function
assert isinstance(unknown, dict) and unknown.get("ok") is False and unknown.get("error") == "unknown_tool" \
    and ran_for_unknown == [], f"got {unknown!r}, functions run: {ran_for_unknown}"
# arguments that are not JSON give invalid_json
assert isinstance(bad_json, dict) and bad_json.get("error") == "invalid_json" and bad_json.get("ok") is False, (
    f"dispatch_tool with '{{query: agent}}' gave {bad_json!r}; json.loads failed: look at what it raises")
# wrong argument names give invalid_arguments
assert isinstance(bad_args, dict) and bad_args.get("error") == "invalid_arguments", (
    f"dispatch_tool with {{'q': ...}} gave {bad_args!r}; calling a function with arguments it does not "
    "take raises TypeError")
# JSON that is not an object gives invalid_arguments
assert isinstance(not_object, dict) and not_object.get("error") == "invalid_arguments", (
    f"dispatch_tool with '[\"agent loops\"]' gave {not_object!r}; json.loads gave a list: check the "
    "arguments are a dict before calling")
# a tool that fails gives tool_failure, not a traceback
assert isinstance(failure, dict) and failure.get("error") == "tool_failure", (
    f"a tool that raised gave {failure!r}; any other exception from the call is a tool_failure")
# every failure also carries a sentence for the model
assert all(isinstance(r, dict) and len(str(r.get("message", "")).split()) >= 3 for r in failures.values()), (
    "these failures have no 'message' sentence: " + ", ".join(
        k for k, r in failures.items() if not (isinstance(r, dict) and len(str(r.get("message", "")).split()) >= 3)))
# the sentences say what went wrong: the tools there are, and that the JSON is broken
assert "search_local_sources" in str(unknown.get("message") if isinstance(unknown, dict) else "") \
    and "json" in str(bad_json.get("message") if isinstance(bad_json, dict) else "").lower(), (
    f"the unknown_tool message is {unknown.get('message') if isinstance(unknown, dict) else unknown!r} and the "
    f"invalid_json one {bad_json.get('message') if isinstance(bad_json, dict) else bad_json!r}; name the tools "
    "there are, and say the arguments are not valid JSON")
# dispatch_tool gives the lesson's code for every kind of call, and runs what the lesson's runs
assert (dispatch_found := compare(dispatch_tool, reference("dispatch_tool"), DISPATCHES, observe=dispatching)), \
    dispatch_found
