# ---
# jupyter:
#   looplab:
#     deepens: "02"
#     adds: tools described in the prompt for models without tool calls, tried on a tiny real model
# ---

# %% [markdown]
# # 12 · JSON tool calls in the prompt
#
# So far the model has asked for tools through a dedicated field, `tool_calls`. Not every model
# or endpoint has one. A plain text model can still use tools if the **prompt** describes them
# and asks for the reply in a fixed format that a program can read: exactly one JSON object,
#
# ```
# {"type": "tool_call", "name": "<tool>", "arguments": {...}}
# {"type": "final_answer", "answer": "..."}
# ```
#
# This is lesson 5's contract again, with the model itself writing it as text. An **adapter**
# between model and loop renders the tools into the system prompt, reads each reply, and hands
# the loop an ordinary assistant message: the loop does not change at all. In this lesson you
# write the two halves of that adapter.

# %%
import json
import zlib
from looplab import Toolbox, Memory, run_agent, printer
from looplab.models import pick_model, model_mode, final
from looplab.models.prompted import prompted, parse_action, render, system_prompt
from looplab import expect


def text_model(offline):
    """A model called without tools: the scripted replies offline, the live or local model otherwise."""
    if model_mode() == "live":
        from looplab.models.live import live_model
        return live_model("chat")
    return pick_model(offline)

# %% [markdown]
# ## Three tools for three weaknesses
#
# A language model alone is weak at **exact computation** (it predicts likely text, it does not
# do arithmetic), at **live data** (its knowledge stops at its training), and at **acting**
# (it writes text; it cannot place an order). One tool for each:

# %%
tools = Toolbox()
orders = []

@tools.tool
def add_numbers(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

@tools.tool
def get_temperature(city: str) -> str:
    "Return the current temperature of a city."
    return f"{zlib.crc32(city.lower().encode()) % 500 / 10 - 15:.1f}°C"   # made up, the same every run

@tools.tool
def buy_shares(symbol: str, amount: int, price: float) -> str:
    "Buy an amount of shares of a stock ticker symbol (such as AAPL) at a price per share."
    orders.append((symbol, amount, price))
    return f"Order for {amount} {symbol} shares at {price} per share successfully placed"

print(system_prompt("You are a helpful assistant.", tools.schemas()))

# %% [markdown]
# The prompt lists each tool with its name, description and parameters, shows the two reply
# shapes, and sets four rules:
#
# 1. use **only** the tools listed;
# 2. **one tool at a time**;
# 3. if an argument is **missing, ask the user** instead of guessing;
# 4. **never write a tool result yourself**: the program runs the tool and sends its result.
#
# Why one at a time? Later steps often depend on earlier results (which city is warmer needs
# both temperatures first), so asking for several at once forces the model to guess. One call
# is also easier to write correctly, and the loop stays simple. The rule is for tools described
# in the prompt, where the model writes its call as JSON text. A model with native tool calls
# (lessons 2 to 4) may ask for several independent calls in one reply, and lesson 21 runs them
# side by side. And the last rule matters more
# than it looks: a text model can happily continue with a made-up "result", and then it is
# answering from its imagination, not from the tool.
#
# ## One request, no loop: what would the model do?
#
# First, a single request per prompt: send it, read the JSON, and *show* what would happen
# without running anything. Offline, a fake text model answers each prompt the way a good model
# does.

# %%
ONE_SHOT = {
    "What is the capital of France?":
        '{"type": "final_answer", "answer": "The capital of France is Paris."}',
    "What is the temperature in Paris right now?":
        '{"type": "tool_call", "name": "get_temperature", "arguments": {"city": "Paris"}}',
    "What is 1002 + 4002?":
        '{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1002, "b": 4002}}',
    "Buy 100 shares of Microsoft for 50 USD per share!":
        '{"type": "tool_call", "name": "buy_shares", "arguments": {"symbol": "MSFT", "amount": 100, "price": 50}}',
    "Buy 100 shares of Apple stocks!":
        '{"type": "final_answer", "answer": "What price per share would you like to pay for the Apple (AAPL) shares?"}',
    "What is the temperature in Paris right now and what is 1002 + 4002?":
        '{"type": "tool_call", "name": "get_temperature", "arguments": {"city": "Paris"}}',
    "Does it rain in Paris right now?":
        '{"type": "final_answer", "answer": "I can only check the temperature, not whether it rains. Shall I get the temperature in Paris?"}',
}

def one_shot_brain(messages, tools_):
    return final(ONE_SHOT.get(messages[-1]["content"], '{"type": "final_answer", "answer": "I am not sure."}'))

def submit_prompt(prompt):
    messages = render([{"role": "system", "content": "You are a helpful assistant."},
                       {"role": "user", "content": prompt}], tools.schemas())
    try:
        reply = text_model(one_shot_brain)(messages, [])
    except Exception as exc:
        return f"[error] {exc}"
    action, problem = parse_action(reply.get("content"))
    if action is None:
        return f"[error] the reply could not be read: {problem}"
    if action.get("tool_calls"):
        fn = action["tool_calls"][0]["function"]
        if fn["name"] not in tools:
            return f"[error] unknown tool {fn['name']}"
        return f"would call {fn['name']} with {json.loads(fn['arguments'])}"
    return action["content"]

# %% [markdown] tags=["predict"]
# One prompt asks two things: *"What is the temperature in Paris right now and what is 1002 +
# 4002?"*. A model that follows the prompt's rules replies with what?
#
# - [ ] two tool calls in one reply, `get_temperature` and `add_numbers`
# - [x] one tool call, `get_temperature`, and nothing about the sum yet
# - [ ] a final answer with a guessed temperature and the sum
#
# One tool at a time: the first call now, the second on a later step of the loop, once the first
# result is back. Guessing the temperature would break two rules at once.

# %%
shown = {prompt: submit_prompt(prompt) for prompt in ONE_SHOT}
for prompt, outcome in shown.items():
    print(f"{prompt}\n    -> {outcome}")

# %% [markdown]
# Read the last four. With no price, the model asks for it. Asked two things, it requests
# only the first tool. Asked about rain, which no tool can check, it says so. A real model
# usually behaves like this, and sometimes does not: the format is a request, not a guarantee.
# A reply may arrive in a code fence, after a friendly sentence, or not as JSON at all:

# %%
for text in ('{"type": "final_answer", "answer": "Paris."}',
             'Sure! ```json\n{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1, "b": 2}}\n```',
             "I think the answer is 5004.",
             '{"type": "dance"}'):
    action, problem = parse_action(text)
    print(f"{text[:50]!r:55} -> {problem or action}")

# %% [markdown]
# ## Exercise 1: read a reply
#
# Write `read_action(text)`: find the JSON object in the text (it may sit inside a
# ```` ```json ```` fence or after a sentence), parse it, and return it if its `"type"` is
# `"tool_call"` or `"final_answer"`. Return `None` for anything else: no JSON, broken JSON, a
# JSON value that is not an object, another type. It must never raise: a reader that crashes on
# a chatty model stops the whole agent.

# %% tags=["exercise"]
def read_action(text):
    """The JSON action in a model's reply text, or None when there is no usable one."""
    return json.loads(text)

# %% [markdown] tags=["hint"]
# Whatever surrounds the object, it starts at a `{` and ends at a `}`. Cut the text there before
# parsing, and say `None` when either is missing.

# %% [markdown] tags=["hint"]
# `json.loads` raises `ValueError` (its `JSONDecodeError` is one) on broken JSON: catch it. After
# parsing, check `isinstance(action, dict)` and `action.get("type")`.

# %% [markdown] tags=["hint"]
# ```python
# def read_action(text):
#     start, end = text.find("{"), text.rfind("}")
#     if start < 0 or end < start:
#         return None
#     try:
#         action = json.loads(text[start:end + 1])
#     except ValueError:
#         return None
#     if not isinstance(action, dict) or action.get("type") not in ("tool_call", "final_answer"):
#         return None
#     return action
# ```

# %% tags=["wrong"]
# wrong: cuts out the object but does not catch the parse error
# expect: catch the parse error
# patch:
# -    try:
# -        action = json.loads(text[start:end + 1])
# -    except ValueError:
# -        return None
# +    action = json.loads(text[start:end + 1])

# %% tags=["wrong"]
# wrong: parses the whole text, so JSON after a sentence or in a fence is missed
# expect: from the first '{' to the last '}'
# replaces: read_action
def read_action(text):
    try:
        action = json.loads(text)
    except ValueError:
        return None
    if not isinstance(action, dict) or action.get("type") not in ("tool_call", "final_answer"):
        return None
    return action

# %% tags=["wrong"]
# wrong: returns any JSON object, whatever its type
# expect: a dict with a known type
# patch:
# -        action = json.loads(text[start:end + 1])
# +        return json.loads(text[start:end + 1])
# @@
# -    if not isinstance(action, dict) or action.get("type") not in ("tool_call", "final_answer"):
# -        return None
# -    return action

# %% tags=["solution"]
def read_action(text):
    """The JSON action in a model's reply text, or None when there is no usable one."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        action = json.loads(text[start:end + 1])
    except ValueError:
        return None
    if not isinstance(action, dict) or action.get("type") not in ("tool_call", "final_answer"):
        return None
    return action

# %%
SAMPLES = ['{"type": "final_answer", "answer": "Paris."}',
           'Here you go: ```json\n{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1, "b": 2}}\n```',
           "The answer is 5004.",
           '{"type": "tool_call", "name": ',
           '{"type": "final_answer", "answer": }',
           '{"type": "dance"}',
           "[1, 2, 3]",
           "} backwards {",
           ""]

def attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

read = [attempt(read_action, text) for text in SAMPLES]
for text, action in zip(SAMPLES, read):
    print(f"{text[:40]!r:45} -> {action}")

# %% [markdown]
# ## Exercise 2: an action becomes an assistant message
#
# The loop understands one shape only: the assistant message of lesson 3. Write
# `to_message(action, call_id)`, turning an action `read_action` returned into that message:
#
# - a `final_answer` becomes `{"role": "assistant", "content": <the answer>}`;
# - a `tool_call` becomes `{"role": "assistant", "content": None, "tool_calls": [<one call>]}`,
#   the call carrying the id it is given, `"type": "function"`, and a `"function"` with the
#   name and the arguments **as JSON text** (missing arguments are `{}`).
#
# The text model never sees an id, so the adapter makes one up for each call; the cell after
# yours does that.

# %% tags=["exercise"]
def to_message(action, call_id):
    """An action ({"type": "tool_call" | "final_answer", ...}) as an assistant message."""
    return {"role": "assistant", "content": action.get("answer")}

# %% [markdown] tags=["hint"]
# Two branches on `action["type"]`. The final answer is the easy one; for the tool call, build
# the same dictionary a model with native tools would send (lesson 3 showed one).

# %% [markdown] tags=["hint"]
# The arguments travel as text: `json.dumps(action.get("arguments", {}))`.

# %% [markdown] tags=["hint"]
# ```python
# def to_message(action, call_id):
#     if action["type"] == "final_answer":
#         return {"role": "assistant", "content": action["answer"]}
#     call = {"id": call_id, "type": "function",
#             "function": {"name": action["name"], "arguments": json.dumps(action.get("arguments", {}))}}
#     return {"role": "assistant", "content": None, "tool_calls": [call]}
# ```

# %% tags=["wrong"]
# wrong: passes the arguments on as a dict, not as JSON text
# expect: arguments as JSON text
# patch:
# -            "function": {"name": action["name"], "arguments": json.dumps(action.get("arguments", {}))}}
# +            "function": {"name": action["name"], "arguments": action.get("arguments", {})}}

# %% tags=["wrong"]
# wrong: expects every call to carry arguments
# expect: send them as '{}'
# patch:
# -            "function": {"name": action["name"], "arguments": json.dumps(action.get("arguments", {}))}}
# +            "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])}}

# %% tags=["solution"]
def to_message(action, call_id):
    """An action ({"type": "tool_call" | "final_answer", ...}) as an assistant message."""
    if action["type"] == "final_answer":
        return {"role": "assistant", "content": action["answer"]}
    call = {"id": call_id, "type": "function",
            "function": {"name": action["name"], "arguments": json.dumps(action.get("arguments", {}))}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}

# %% [markdown]
# ## Your adapter, in front of the loop
#
# Your two functions make a whole adapter. On the way out, `render` (from `looplab`) writes the
# chat-format memory as plain text messages: the tools and rules go into the system prompt, each
# tool result becomes a user message "Tool result from add_numbers: 5004", each earlier action
# the JSON the model wrote. On the way back, your code reads the reply.

# %%
def my_prompted(text_model):
    """A text model as a model function with tools: tools in the prompt, actions read back."""
    count = 0
    def model(messages, tools):
        nonlocal count
        reply = text_model(render(messages, tools), [])
        action = read_action(reply.get("content") or "")
        if action is None:
            raise ValueError(f"the reply was not a JSON action: {str(reply.get('content'))[:80]!r}")
        count += 1
        return to_message(action, f"call_{count}")
    return model

SUM_REPLIES = [
    final('Sure. {"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1002, "b": 4002}}'),
    final('{"type": "final_answer", "answer": "1002 + 4002 = 5004."}'),
]
try:
    summed = run_agent("What is 1002 + 4002?", my_prompted(text_model(SUM_REPLIES)), tools,
                       Memory("You are a helpful assistant."), tracer=printer())
except Exception as exc:
    summed = {"stopped": f"raised {type(exc).__name__}: {exc}", "answer": None, "tool_calls": 0}
print(summed)

# %% [markdown]
# Two things happened that the loop never saw: the model's JSON came after a sentence, and it
# named no id. Your reader cut the object out; your converter gave the call an id, and the
# tool's result went back under it.
#
# ## The hardened version: `looplab.models.prompted`
#
# `prompted(model)` is the same adapter, read in `looplab/models/prompted.py`. Beside what you
# wrote, it:
#
# - looks inside a ```` ```json ```` fence first, so braces in the sentence around it do no harm;
# - says *why* a reply is unusable ("a tool_call needs a "name"", "the JSON could not be
#   read ... at position 31") and **asks the model again** with that reason, up to two times,
#   before the run stops with `error` and a sentence saying what to try;
# - checks the action's fields (a name that is text, arguments that are an object) before the
#   loop sees them;
# - makes ids that cannot repeat across runs (`call_` and twelve random hex digits);
# - carries a ReAct **thought** on the message, which is the next lesson.

# %%
for text in ('Use {braces} sparingly. ```json\n{"type": "final_answer", "answer": "ok"}\n```',
             '{"type": "tool_call", "arguments": {"a": 1}}'):
    mine, theirs = attempt(read_action, text), parse_action(text)
    print(f"{text[:45]!r:50}\n   yours: {mine}\n   looplab: {theirs[1] or theirs[0]}")

simple = prompted(text_model([
    final("The sum is 5004."),                                       # not JSON: looplab asks again
    final('{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1002, "b": 4002}}'),
    final('{"type": "final_answer", "answer": "1002 + 4002 = 5004."}'),
]))
repaired = run_agent("What is 1002 + 4002?", simple, tools, Memory("You are a helpful assistant."))
print(repaired)

# %% [markdown]
# ## A tiny real model: well-formed is not right
#
# With **Model → local**, a real language model runs inside this page, offline: for the tests a
# very small one, SmolLM2-135M (135 million parameters, about 100 MB). Its replies go through
# this same adapter with one guard more: the engine may only write text that fits
# `action_schema(tools)`, a JSON schema with one branch per tool (the name fixed, the tool's
# parameters as the arguments' schema) and one for a final answer. The engine turns the schema
# into a grammar, so every reply **parses**: one call of a listed tool, or an answer. No made-up
# tool, no broken JSON, no repair round.
#
# Parsing is not being right. Below are the first replies SmolLM2-135M really wrote in Loop Lab's
# page, recorded as prepared replies so this cell runs offline (with the local model it runs for
# real). The Toolbox still checks every argument, and `buy_shares` now needs approval: a rule
# standing in for a person refuses a price the user never named.

# %%
import re
from looplab.approvals import Decision
from looplab.models.prompted import action_schema
from looplab.trace import Collector

print(json.dumps(action_schema(tools.schemas())["anyOf"][0])[:150], "...")

def tiny_call(name, **arguments):
    return json.dumps({"type": "tool_call", "name": name, "arguments": arguments})

TINY = {  # SmolLM2-135M-Instruct (Q4_1), greedy, held to action_schema: its first reply to each task
    "What is 1002 + 4002?": tiny_call("add_numbers", a=1002, b=4002),
    "What is the temperature in Paris right now?":
        tiny_call("buy_shares", symbol="BUSINESS_" * 22 + "BU", amount=1000000, price=1000000.0),
    "Buy 100 shares of Apple stocks!": tiny_call("buy_shares", symbol="Apple", amount=100, price=100),
    "Buy 100 shares of Microsoft for 50 USD per share!":
        tiny_call("buy_shares", symbol="Microsoft", amount=100, price=50),
}

def tiny_brain(messages, tools_):
    task = next(m["content"] for m in messages if m["role"] == "user")
    return final(TINY.get(task, '{"type": "final_answer", "answer": "I am not sure."}'))

tiny = pick_model(tiny_brain)
if model_mode() == "scripted":
    tiny = prompted(tiny)  # the recorded replies are JSON actions; the local model reads its own

guarded = Toolbox()
for name, func in (("add_numbers", add_numbers), ("get_temperature", get_temperature), ("buy_shares", buy_shares)):
    spec = next(t["function"] for t in tools.schemas() if t["function"]["name"] == name)
    guarded.register(name, spec["description"], spec["parameters"], func, needs_approval=name == "buy_shares")

tiny_runs, orders_before = {}, len(orders)
for task in TINY:
    def priced_by_user(name, arguments, task=task):
        """Approve a purchase only at the price per share the user named."""
        price = json.loads(arguments).get("price")
        named = re.search(r"(\d+(?:\.\d+)?) (?:USD|dollars?) per share", task)
        if named is None:
            return Decision(False, f"the user named no price; {price} is a guess")
        return Decision(float(named.group(1)) == price, f"the user said {named.group(1)} per share, not {price}")
    events = Collector()
    result = run_agent(task, tiny, guarded, Memory("You are a helpful assistant."), max_steps=1,
                       approve=priced_by_user, tracer=events)
    tiny_runs[task] = (result, events)
    print(f"{task}\n    stopped: {result['stopped']}")
    for e in events.of("tool_call") + events.of("tool_result"):
        print(f"    {e['type']}: {e['tool']} {e.get('arguments') or e.get('result')}")

# %% [markdown]
# Every reply was a well-formed call of a listed tool, and only the first was right. Asked for
# the temperature in Paris, the tiny model bought a million shares of "BUSINESS_BUSINESS_…" (the
# name ends only where the schema's 200-character bound stops it). Asked to buy Apple shares
# with no price, it made one up, and wrote "Apple" where a ticker (AAPL) belongs. Given the price,
# it bought at the right price, again under the company's name.
#
# The Toolbox let all of these through: their arguments have the right types. The approval
# stopped two, because it compares the call with what the user said; the wrong symbol went
# through, because nothing checks it. A schema makes a tiny model's replies **usable**;
# validation, approvals and gates are what make them **safe**, and each catches only what it
# checks. Models from about half a billion parameters up (Settings names one) get the values
# right far more often, and then the same guards cost nothing.

# %% tags=["check"]
from looplab import Case, compare, generate, reference

PIECES = ['{"type": "final_answer", "answer": "Paris."}', '{"type": "tool_call", "name": "add_numbers", '
          '"arguments": {"a": 1, "b": 2}}', '{"type": "thought"}', '[1, 2]', '{"type": "tool_call"', "null", "}",
          "{", '"type": "final_answer"', '{"answer": "x"}', '{"type": "final_answer", "answer": "{nested}"}', "7"]
WORDS = ["", "Sure!", "```json", "```", "Here you go:", "\n", "I think"]


def reply_text(d):
    return " ".join(d.pick(WORDS) if d.maybe(0.5) else d.pick(PIECES) for _ in range(d.number(0, 4)))


REPLY_TEXTS = generate(lambda d: Case((reply_text(d),)), count=150, edges=[
    Case(("",), "an empty reply"), Case(('{"type": "final_answer", "answer": "a"} {"type": "tool_call"}',),
                                        "two JSON objects in one reply"),
    Case(('{"type": "final_answer", "answer": "Paris."}.',), "a full stop right after the JSON")])


def action_case(d):
    if d.maybe(0.4):
        return Case(({"type": "final_answer", "answer": d.pick(["Paris.", "", None, "5004"])}, "c1"))
    action = {"type": "tool_call", "name": d.pick(["add_numbers", "get_temperature"])}
    if d.maybe(0.7):
        action["arguments"] = d.pick([{}, {"city": "Oslo"}, {"a": 1002, "b": 4002}, {"city": "Zürich"}])
    return Case((action, d.pick(["c1", "call_9"])))


ACTIONS = generate(action_case, count=60)
# given: a well-formed reply is read
assert read[0] == {"type": "final_answer", "answer": "Paris."}, (
    f"read_action gave {read[0]!r} for a plain JSON reply; it should return the parsed object")
# JSON inside a code fence after a sentence is found
assert isinstance(read[1], dict) and read[1].get("name") == "add_numbers", (
    f"read_action gave {read[1]!r} for JSON inside a fence after a sentence; parse only the part "
    "from the first '{' to the last '}'")
# no JSON, broken JSON, an unknown type, a list and an empty reply give None, never an exception
assert read[2:] == [None] * (len(SAMPLES) - 2), (
    f"read_action gave {read[2:]} for {SAMPLES[2:]}; each should be None: catch the parse error, "
    "and check that the result is a dict with a known type")
# read_action reads what the lesson's reads, and nothing else, from many chatty replies
assert (read_found := compare(read_action, reference("read_action"), REPLY_TEXTS)), read_found
# given: a final answer becomes an assistant message with its text
assert attempt(to_message, {"type": "final_answer", "answer": "Paris."}, "c1") == {
    "role": "assistant", "content": "Paris."}, (
    f"to_message gave {attempt(to_message, {'type': 'final_answer', 'answer': 'Paris.'}, 'c1')!r}")
converted = attempt(to_message, {"type": "tool_call", "name": "get_temperature", "arguments": {"city": "Oslo"}}, "c7")
# a tool call becomes one call with the given id, its name and its arguments as JSON text
assert isinstance(converted, dict) and converted.get("content") is None and converted.get("tool_calls") == [
    {"id": "c7", "type": "function", "function": {"name": "get_temperature", "arguments": '{"city": "Oslo"}'}}], (
    f"to_message gave {converted!r} for a get_temperature call; the loop needs content None and a "
    "tool_calls list of one call with the id, type 'function', and the arguments as JSON text")
bare = attempt(to_message, {"type": "tool_call", "name": "add_numbers"}, "c8")
# a tool call with no arguments gets an empty object
assert isinstance(bare, dict) and [c["function"]["arguments"] for c in bare.get("tool_calls") or []] == ["{}"], (
    f"to_message gave {bare!r} for a call with no arguments; send them as '{{}}'")
# to_message makes the lesson's message from every kind of action
assert (message_found := compare(to_message, reference("to_message"), ACTIONS)), message_found
# given: your adapter's run ended with a stop reason, every model is held to that
assert summed["stopped"] in ("final", "step_limit", "error", "needs_person"), (
    f"the run with your adapter gave {summed}; look at the error it names")
# given: every run of the tiny model's section ended with a stop reason, and every call got its answer
assert all(r["stopped"] in ("final", "step_limit", "error", "needs_person") and
           len(e.of("tool_call")) == len(e.of("tool_result")) for r, e in tiny_runs.values()), (
    f"the runs ended {[r['stopped'] for r, _ in tiny_runs.values()]}; look at the section's output")
# given: no order was placed at a price the user did not name
assert all(price == 50 for _, _, price in orders[orders_before:]), (
    f"orders placed: {orders[orders_before:]}; the approval rule should refuse any price but the user's 50")
# with the prepared replies, your adapter ran add_numbers and answered 5004
expect(summed["stopped"] == "final" and summed["tool_calls"] == 1 and "5004" in (summed["answer"] or ""),
       f"the run with your adapter gave {summed}; it should call add_numbers once, then answer",
       observed=f"the model's run ended {summed['stopped']!r} with {summed.get('tool_calls')} tool calls and "
                f"answer {summed.get('answer')!r}; the prepared replies add once and answer 5004")
# given: looplab's adapter asked again after a reply that was not JSON, then finished
expect(repaired["stopped"] == "final" and "5004" in (repaired["answer"] or ""),
       f"looplab's adapter gave {repaired}",
       observed=f"the model's run ended {repaired['stopped']!r} with answer {repaired.get('answer')!r}; "
                "the prepared replies need one repair, then answer 5004")
# given: the recorded tiny model's guessed purchases were refused, and the priced one placed
expect([tiny_runs[task][0]["stopped"] for task in TINY] == ["step_limit", "needs_person", "needs_person", "step_limit"],
       f"the tiny model's runs ended {[r['stopped'] for r, _ in tiny_runs.values()]}",
       observed="the model's runs ended " + ", ".join(f"{r['stopped']!r}" for r, _ in tiny_runs.values())
                + "; SmolLM2-135M's recorded calls end step_limit, needs_person, needs_person, step_limit")
# given: the one-shot prompts: a missing price is asked for and two questions start with one tool
expect("price" in shown["Buy 100 shares of Apple stocks!"].lower()
       and shown["What is the temperature in Paris right now and what is 1002 + 4002?"].startswith("would call get_temperature"),
       f"the one-shot outcomes were {shown}",
       observed="the model answered the Apple prompt with "
                f"{shown['Buy 100 shares of Apple stocks!'][:80]!r}; a scripted model asks for the price")
