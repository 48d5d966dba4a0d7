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
from looplab.models import pick_model, model_mode, call, final

live = model_mode() == "live"

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
# ## Error codes for programs, sentences for models
#
# Loop Lab's toolbox answers a failure with a sentence, written for the model. Programs (tests,
# dashboards, alerts) prefer a short **stable code** they can count and compare:
# `unknown_tool`, `invalid_json`, `invalid_arguments`, `tool_failure`. The details (a stack
# trace) stay in your protected logs; the model sees only the code, and that is still enough
# for it to repair an `invalid_arguments` call.
#
# ## Exercise 2: a dispatcher with stable codes
#
# Complete `dispatch_tool(name, arguments_json, tools)`. It returns `{"ok": True, "data": ...}`,
# or `{"ok": False, "error": <code>}` for the four failures above, and it never raises. Then
# `run_call` wraps a tool call into an output that carries the **same call id**.

# %% tags=["exercise"]
def dispatch_tool(name, arguments_json, tools):
    tool = tools.get(name)
    if tool is None:
        return {"ok": False, "error": "unknown_tool"}
    arguments = json.loads(arguments_json)
    return {"ok": True, "data": tool(**arguments)}

# %% tags=["solution"]
def dispatch_tool(name, arguments_json, tools):
    tool = tools.get(name)
    if tool is None:
        return {"ok": False, "error": "unknown_tool"}
    try:
        arguments = json.loads(arguments_json)
    except json.JSONDecodeError:
        return {"ok": False, "error": "invalid_json"}
    if not isinstance(arguments, dict):
        return {"ok": False, "error": "invalid_arguments"}
    try:
        return {"ok": True, "data": tool(**arguments)}
    except TypeError:
        return {"ok": False, "error": "invalid_arguments"}
    except Exception:
        return {"ok": False, "error": "tool_failure"}

# %% [markdown]
# Three small tests pin the dispatcher down: the tool gives the same order for the same input,
# a valid call finds its tool and keeps its call id, and an unknown tool runs **no** function.

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
failure = attempt(dispatch_tool, "broken", '{"query": "x"}', TOOLS)
for line in (valid, unknown, bad_json, bad_args, failure):
    print(line)

# %% tags=["check"]
# the search gives the same matches in the same order for the same input
assert search_local_sources("agent loops") == search_local_sources("agent loops"), "the order changed between two runs"
# the round trip reached a final answer
assert isinstance(answer, str) and answer, f"round_trip returned {answer!r} as the answer"
calls_made = [c["id"] for m in trip if m.get("tool_calls") for c in m["tool_calls"]]
results = [m.get("tool_call_id") for m in trip if m["role"] == "tool"]
# every tool result carries the id of the call it answers
assert results == calls_made, (
    f"the tool messages carry ids {results}, the calls were {calls_made}; give each tool "
    "message 'tool_call_id': tool_call['id']")
# the search result reached the model's second request
assert live or "agent-loop" in answer and "never saw" not in answer, (
    f"the model answered {answer!r}: on its second request the last message was not a tool "
    "result with its call's id")
# a valid call finds its tool and keeps the call id
assert valid["call_id"] == "call_01" and json.loads(valid["output"])["ok"] is True, f"got {valid}"
# an unknown tool returns unknown_tool and runs no function
assert unknown == {"ok": False, "error": "unknown_tool"} and ran_for_unknown == [], (
    f"got {unknown!r}, functions run: {ran_for_unknown}")
# arguments that are not JSON give invalid_json
assert bad_json == {"ok": False, "error": "invalid_json"}, (
    f"dispatch_tool with '{{query: agent}}' gave {bad_json!r}; catch json.JSONDecodeError")
# wrong argument names give invalid_arguments
assert bad_args == {"ok": False, "error": "invalid_arguments"}, (
    f"dispatch_tool with {{'q': ...}} gave {bad_args!r}; a TypeError from the call means the "
    "arguments did not fit")
# a tool that fails gives tool_failure, not a traceback
assert failure == {"ok": False, "error": "tool_failure"}, (
    f"a tool that raised gave {failure!r}; catch any other exception as tool_failure")
