# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: one boundary that turns any provider's reply into the same shape, and a harness that checks it
# ---

# %% [markdown]
# # 5 · The adapter contract: one shape at one boundary
#
# Every model provider packs its reply differently. Chat completions put tool calls in
# `choices[0].message.tool_calls`; the Responses API returns a list of `output` items of type
# `function_call`, keyed by `call_id`; a model without native tools writes JSON inside its text
# (lesson 12). If those shapes leak into your loop, the loop grows an `if` for every provider
# and can no longer be tested without a network.
#
# The cure: **normalise at one boundary.** A small adapter turns whatever the provider sent into
# one agreed shape, keeps the call ids intact, and the loop only ever sees that shape. The
# harness (your loop) owns everything else: which tools exist, checking arguments, running
# them, permissions, and when to stop.

# %%
import json
from looplab import Toolbox, Memory, run_agent, printer
from looplab import expect
from looplab.models import pick_model, call, final

# %% [markdown]
# ## A contract of two kinds of turn
#
# The smallest contract has two shapes. A turn is either a request for a tool or a finished
# answer:
#
# ```python
# {"type": "tool_call", "id": "call_1", "name": "count_words", "arguments": {"text": "agent harness"}}
# {"type": "final", "text": "The phrase has 2 words."}
# ```
#
# With that contract, the harness reads top to bottom:
#
# 1. start the history with the user's task;
# 2. ask the model adapter for one turn, passing the tool names;
# 3. a `final` turn is the answer;
# 4. a `tool_call` turn: refuse an unknown name, refuse arguments that are not an object;
# 5. run the tool; add the call and its result to the history **as a pair**;
# 6. repeat until an answer, or until the turn budget runs out.

# %%
def count_words(text: str) -> dict:
    """Count whitespace-separated words in a text."""
    return {"count": len(text.split())}

TOOLS = {"count_words": count_words}

def run_turns(task, ask_model, max_turns=4):
    history = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        turn = ask_model(history, list(TOOLS))
        if turn.get("type") == "final":
            return turn["text"]
        if turn.get("type") != "tool_call":
            raise ValueError(f"expected a final or a tool_call turn, got {turn!r}")
        name, arguments = turn.get("name"), turn.get("arguments")
        if name not in TOOLS:
            raise ValueError(f"tool is not allowed: {name!r}")
        if not isinstance(arguments, dict):
            raise ValueError("tool arguments must be an object")
        result = TOOLS[name](**arguments)
        history += [{"role": "assistant", "content": turn},
                    {"role": "tool", "tool_call_id": turn.get("id"), "content": {"ok": True, "data": result}}]
    raise TimeoutError("the agent used up its turns")

# %% [markdown]
# ## A fake model that checks what reached it
#
# To test this without any model at all, script the turns. The fake model does one more thing:
# before its second turn it **asserts that the tool's observation arrived** in the history.
# So a passing test proves two things: the harness offered the intended tool, and the result
# of that tool reached the next model turn. (It does not prove a real model would pick that
# tool. That takes evaluations with real models.)

# %%
turns = iter([
    {"type": "tool_call", "id": "call_1", "name": "count_words", "arguments": {"text": "red green blue"}},
    {"type": "final", "text": "The phrase has 3 words."},
])

def fake_model(history, available_tools):
    assert "count_words" in available_tools, "the harness did not offer count_words"
    if history[-1]["role"] == "tool":
        assert history[-1]["content"]["data"]["count"] == 3, "the observation did not reach the model"
    return next(turns)

print(run_turns("Count these words", fake_model))

# %% [markdown]
# ## Loop Lab's contract
#
# Loop Lab picks a richer shape: the **chat-completions assistant message** itself, because it
# already carries everything (text, several tool calls, ids) and because the lessons teach it
# anyway. Every adapter in `looplab.models` (raw HTTP chat, the openai SDK, the Responses API,
# JSON prompting) returns one of those, and `run_agent` never looks at anything else.
#
# The same test idea works with `run_agent`: a scripted reply may be a **function** that looks
# at the messages it is sent before answering.

# %%
box = Toolbox()
box.tool(count_words)

def answer_from_observation(messages, tools):
    last = messages[-1]
    assert last["role"] == "tool", f"expected the tool result last, got a {last['role']} message"
    assert json.loads(last["content"])["count"] == 3, "the observation did not reach the model"
    return final("The phrase has 3 words.")

model = pick_model([call("count_words", text="red green blue"), answer_from_observation])
result = run_agent("How many words are in 'red green blue'? Use the tool.", model, box, Memory(""),
                   tracer=printer())
print(result)

# %% [markdown]
# If the harness lost the result, the fake model's assertion would fail *inside the model
# call*, and `run_agent` reports that as a stop with `error` and the assertion's text: the test
# fails loudly, and nothing crashes.
#
# The harness also refuses what the contract forbids. An unknown name or arguments that are not
# an object come back to the model as `error:` results it can read:

# %%
sloppy = pick_model([
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "delete_everything", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "count_words", "arguments": "[1, 2]"}}]},
    final("Sorry, my calls were wrong."),
])
memory = Memory("")
print(run_agent("Count something.", sloppy, box, memory))
for message in memory.history:
    if message["role"] == "tool":
        print(message["tool_call_id"], message["content"])

# %% [markdown]
# The little `run_turns` harness leaves a lot out on purpose: no provider adapter, one tool call
# per turn, no memory beyond the run, no network, no timeouts, no approval for side effects, and
# it raises where it should hand the model an error it can act on. Each has a home in this
# course: adapters (14), several calls per reply and errors as results (`run_agent`, 4), memory
# (8, 9), approvals (10). The orchestration itself should stay this small and this testable.
#
# ## Exercise 1: an adapter from chat completions to turns
#
# Write `to_turn(message)`, which takes a chat-completions assistant message and returns the
# two-shape turn contract above: a `tool_call` turn for the **first** tool call (its `id`,
# `name`, and `arguments` **parsed from JSON text into a dict**), else a `final` turn with the
# text. Then the little harness runs on chat-format replies.

# %% tags=["exercise"]
def to_turn(message):
    calls = message.get("tool_calls") or []
    if calls:
        first = calls[0]
        return {"type": "tool_call", "name": first["function"]["name"],
                "arguments": first["function"]["arguments"]}
    return {"type": "final", "text": message["content"]}

# %% [markdown] tags=["hint"]
# Print what `to_turn` gives for a prepared call to `count_words`, and compare it with the
# `tool_call` shape at the top of the lesson: one key is missing, and one value has the wrong
# type.

# %% [markdown] tags=["hint"]
# The id is `first["id"]`. The arguments arrive as JSON **text**; `json.loads` turns them into
# a dict (an empty string should become `{}`). For a final turn, `message.get("content") or ""`
# copes with a reply whose content is `None`.

# %% [markdown] tags=["hint"]
# ```python
# def to_turn(message):
#     calls = message.get("tool_calls") or []
#     if calls:
#         first = calls[0]
#         return {"type": "tool_call", "id": first["id"], "name": first["function"]["name"],
#                 "arguments": json.loads(first["function"]["arguments"] or "{}")}
#     return {"type": "final", "text": message.get("content") or ""}
# ```

# %% tags=["wrong"]
# wrong: adds the id but leaves the arguments as JSON text
# expect: JSON text and the turn needs a dict
# patch:
# -                "arguments": json.loads(first["function"]["arguments"] or "{}")}
# +                "arguments": first["function"]["arguments"]}

# %% tags=["wrong"]
# wrong: parses the arguments but forgets the call's id
# expect: must carry the call's id
# patch:
# -        return {"type": "tool_call", "id": first["id"], "name": first["function"]["name"],
# +        return {"type": "tool_call", "name": first["function"]["name"],

# %% tags=["solution"]
def to_turn(message):
    calls = message.get("tool_calls") or []
    if calls:
        first = calls[0]
        return {"type": "tool_call", "id": first["id"], "name": first["function"]["name"],
                "arguments": json.loads(first["function"]["arguments"] or "{}")}
    return {"type": "final", "text": message.get("content") or ""}

# %%
chat_replies = iter([call("count_words", id="call_9", text="agent harness"), final("2 words.")])

def chat_adapter(history, available_tools):
    return to_turn(next(chat_replies))

try:
    adapted = run_turns("Count 'agent harness'", chat_adapter)
except Exception as exc:
    adapted = f"raised {type(exc).__name__}: {exc}"
print(adapted)
turn_for_call = to_turn(call("count_words", id="call_9", text="agent harness"))
print(turn_for_call)

# %% [markdown]
# ## Exercise 2: an adapter from the Responses API
#
# Lesson 14 calls the Responses API for real. Its reply is a list of `output` items. Write
# `from_responses(output)`, which turns them into **one chat-completions assistant message**:
# the text of every `message` item's `output_text` parts joined into `content` (or `None` if
# there is none), and each `function_call` item a tool call whose `id` is the item's
# **`call_id`** (not its `id`: that one names the item, and the result must quote `call_id`).

# %%
OUTPUT = [
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "function_call", "id": "fc_1", "call_id": "call_01", "name": "search_local_sources",
     "arguments": "{\"query\": \"agent loops\"}", "status": "completed"},
]
OUTPUT_TEXT = [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "Agent loops repeat ", "annotations": []},
                            {"type": "output_text", "text": "observation and action.", "annotations": []}]}]

# %% tags=["exercise"]
def from_responses(output):
    message = {"role": "assistant", "content": None}
    for item in output:
        if item["type"] == "function_call":
            message["tool_calls"] = [{"id": item["id"], "type": "function",
                                      "function": {"name": item["name"], "arguments": item["arguments"]}}]
    return message

# %% [markdown] tags=["hint"]
# The starter misses three things: the text of `message` items, every `function_call` after
# the first (it overwrites the list), and which of the two ids the result must quote.

# %% [markdown] tags=["hint"]
# Collect two lists while walking the items: the `text` of each `output_text` part of every
# `message` item, and one tool call per `function_call` item with `"id": item["call_id"]`. Then
# `content` is the joined text, or `None` when there is none, and `tool_calls` is there only if
# the list is not empty.

# %% [markdown] tags=["hint"]
# ```python
# def from_responses(output):
#     texts, calls = [], []
#     for item in output:
#         if item.get("type") == "message":
#             texts += [part["text"] for part in item.get("content", []) if part.get("type") == "output_text"]
#         elif item.get("type") == "function_call":
#             calls.append({"id": item["call_id"], "type": "function",
#                           "function": {"name": item["name"], "arguments": item["arguments"]}})
#     message = {"role": "assistant", "content": "".join(texts) or None}
#     if calls:
#         message["tool_calls"] = calls
#     return message
# ```

# %% tags=["wrong"]
# wrong: quotes the item's id, not its call_id
# expect: not the item's
# patch:
# -            calls.append({"id": item["call_id"], "type": "function",
# +            calls.append({"id": item["id"], "type": "function",

# %% tags=["wrong"]
# wrong: joins the text parts with a space, which doubles the space between them
# expect: join the output_text parts
# patch:
# -    message = {"role": "assistant", "content": "".join(texts) or None}
# +    message = {"role": "assistant", "content": " ".join(texts) or None}

# %% tags=["wrong"]
# wrong: an empty string for content when there is no text, where the reference has None
# expect: yours theirs
# patch:
# -    message = {"role": "assistant", "content": "".join(texts) or None}
# +    message = {"role": "assistant", "content": "".join(texts)}

# %% tags=["solution"]
def from_responses(output):
    texts, calls = [], []
    for item in output:
        if item.get("type") == "message":
            texts += [part["text"] for part in item.get("content", []) if part.get("type") == "output_text"]
        elif item.get("type") == "function_call":
            calls.append({"id": item["call_id"], "type": "function",
                          "function": {"name": item["name"], "arguments": item["arguments"]}})
    message = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    return message

# %% [markdown]
# Where a trusted reference exists, test against it. `looplab.models.responses.read_output` is
# the adapter Loop Lab uses in live mode; your function should agree with it on these two
# replies (it also keeps the raw items, for reasons lesson 14 explains; we compare the rest).

# %%
from looplab.models.responses import read_output, OUTPUT_KEY

def looplab_reads(output):
    message = read_output({"output": output})
    message.pop(OUTPUT_KEY, None)
    return message

yours = [from_responses(OUTPUT), from_responses(OUTPUT_TEXT)]
theirs = [looplab_reads(OUTPUT), looplab_reads(OUTPUT_TEXT)]
print(yours, theirs, sep="\n")

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def chat_call(d, n):
    return {"id": f"call_{n}", "type": "function", "function": {"name": d.pick(["count_words", "search"]),
            "arguments": d.pick(['{"text": "a b"}', "{}", "", '{"n": 1, "m": [2]}'])}}


REPLIES = generate(lambda d: Case(({"role": "assistant", "content": d.pick([None, "", "Done.", "Let me count."]),
                                    **({"tool_calls": [chat_call(d, n) for n in range(d.number(0, 3))]}
                                       if d.maybe(0.8) else {})},)), count=60, edges=[
    Case(({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}},
        {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},), "two calls in one reply"),
    Case(({"role": "assistant", "content": None},), "a reply with content None and no calls"),
    Case(({"role": "assistant", "content": "Hi.", "tool_calls": []},), "an empty list of calls")])


def output_item(d):
    kind = d.pick(["message", "function_call", "reasoning"])
    if kind == "message":
        return {"type": "message", "role": "assistant", "content": d.some(lambda d: d.pick([
            {"type": "output_text", "text": d.pick(["Agent ", "loops.", ""])}, {"type": "refusal", "refusal": "no"}]),
            0, 3)}
    if kind == "function_call":
        n = d.number(1, 9)
        return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "count_words",
                "arguments": d.pick(['{"text": "a"}', "{}"])}
    return {"type": "reasoning", "id": "rs_1", "summary": []}


OUTPUTS = generate(lambda d: Case((d.some(output_item, 0, 4),)), count=80,
                   edges=[Case(([],), "no output items"), Case((OUTPUT,), "the lesson's OUTPUT"),
                          Case((OUTPUT + OUTPUT_TEXT,), "a call and a message together")])

# given: the run with the checking fake model ended with a reason
assert result["stopped"] in ("final", "step_limit", "error"), f"run_agent gave {result}"
# given: the fake model saw count_words offered and the observation arrive
expect(result["stopped"] == "final", f"run_agent with the checking fake model gave {result}",
       observed=f"the run stopped with {result['stopped']!r} after {result['steps']} steps and answered "
                f"{result['answer']!r}; the scripted model answers 'The phrase has 3 words.' once the "
                "count reaches it")
# to_turn keeps the call's id
assert turn_for_call.get("id") == "call_9", (
    f"to_turn gave {turn_for_call}; the turn must carry the call's id so the result can be matched "
    "to its request")
# to_turn parses the arguments into a dict
assert turn_for_call.get("arguments") == {"text": "agent harness"}, (
    f"the arguments are {turn_for_call.get('arguments')!r}; they arrive as JSON text and the turn needs a dict")
# to_turn does what the lesson's does with every kind of reply (no calls, two calls, content None)
assert (turn_found := compare(to_turn, reference("to_turn"), REPLIES)), turn_found
# the harness runs on your adapter
assert adapted == "2 words.", f"run_turns with your adapter gave {adapted!r}"
# a function_call becomes a tool call keyed by call_id
assert yours[0].get("tool_calls") and yours[0]["tool_calls"][0]["id"] == "call_01", (
    f"from_responses gave {yours[0]}; the result must quote the call's id ('call_01'), not the item's ('fc_1')")
# message text is joined into content
assert yours[1].get("content") == "Agent loops repeat observation and action.", (
    f"from_responses gave content {yours[1].get('content')!r}; join the output_text parts of "
    "message items")
# your adapter agrees with Loop Lab's
assert yours == theirs, f"yours:  {yours}\ntheirs: {theirs}"
# from_responses does what the lesson's does with many lists of output items
assert (responses_found := compare(from_responses, reference("from_responses"), OUTPUTS)), responses_found
