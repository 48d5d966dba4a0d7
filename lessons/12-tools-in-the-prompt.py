# %% [markdown]
# # 12 · Without native tools: JSON in the prompt, and ReAct
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
# This is lesson 5's contract again, with the model itself writing it as text. An adapter
# between model and loop, `looplab.models.prompted`, renders the tools into the system prompt,
# parses each reply, and hands the loop an ordinary assistant message: the loop does not change
# at all.

# %%
import json
import re
import zlib
from looplab import Toolbox, Memory, run_agent, printer
from looplab.models import pick_model, model_mode, final, scripted
from looplab.models.prompted import prompted, parse_action, render, system_prompt

live = model_mode() == "live"
if live:
    from looplab.models.live import live_model

def text_model(offline):
    """A model called without tools: the scripted replies offline, plain chat completions live."""
    return live_model("chat") if live else pick_model(offline)

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
# shapes, and sets rules: use only these tools, do not invent results, **one tool at a time**,
# and **if an argument is missing, ask the user** instead of guessing.
#
# Why one at a time? Later steps often depend on earlier results (which city is warmer needs
# both temperatures first), so asking for several at once forces the model to guess. One call
# is also easier to write correctly, and the loop stays simple.
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

shown = {prompt: submit_prompt(prompt) for prompt in ONE_SHOT}
for prompt, outcome in shown.items():
    print(f"{prompt}\n    -> {outcome}")

# %% [markdown]
# Read the last four. With no price, the model asks for it. Asked two things, it requests
# only the first tool (the rule said one at a time; a loop would get to the second). Asked
# about rain, which no tool can check, it says so. A real model usually behaves like this,
# and sometimes does not: the format is a request, not a guarantee. So the adapter reads
# replies defensively (a code fence, words around the JSON) and, when a reply cannot be read,
# tells the model what was wrong and asks again, a couple of times, before giving up with an
# `error` stop.

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
# ```` ```json ```` fence or after a sentence: take from the first `{` to the last `}`), parse
# it, and return it if its `"type"` is `"tool_call"` or `"final_answer"`; return `None` for
# anything else (no JSON, broken JSON, another type).

# %% tags=["exercise"]
def read_action(text):
    return json.loads(text)

# %% tags=["solution"]
def read_action(text):
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
           '{"type": "dance"}']

def attempt(text):
    try:
        return read_action(text)
    except Exception as exc:
        return f"raised {type(exc).__name__}"

read = [attempt(text) for text in SAMPLES]
for text, action in zip(SAMPLES, read):
    print(f"{text[:40]!r:45} -> {action}")

# %% [markdown]
# ## The loop, with the adapter in front
#
# `prompted(model)` wraps a text model into a model function with the usual shape, so
# `run_agent` runs it unchanged. The memory stays in chat format: on the way out, the adapter
# shows each tool result to the model as a user message "Tool result from add_numbers: 5004"
# and each earlier action as the JSON the model wrote.

# %%
simple = prompted(text_model([
    final('{"type": "tool_call", "name": "add_numbers", "arguments": {"a": 1002, "b": 4002}}'),
    final('{"type": "final_answer", "answer": "1002 + 4002 = 5004."}'),
]))
memory = Memory("You are a helpful assistant.")
print(run_agent("What is 1002 + 4002?", simple, tools, memory, tracer=printer()))

# %% [markdown]
# ## ReAct: a thought before each action
#
# A **ReAct** agent ("reason + act") writes a short **thought** before every action: what it
# knows, what is missing, what it will do. The thought comes *first* in the JSON, so the model
# writes its reasoning before it chooses; and the thought stays in the conversation, so the next
# step sees the plan, not only the actions. Thought → action → observation, until the answer.
#
# In Loop Lab the thought rides on the assistant message and shows in the trace. The question
# below needs the same tool twice with different arguments, then a comparison:

# %%
def compare(messages, tools_):
    seen = re.findall(r"Tool result from get_temperature: (-?[\d.]+)°C", " ".join(str(m["content"]) for m in messages))
    jakarta, singapore = (float(t) for t in seen[:2])
    verdict = "Yes" if singapore > jakarta else "No"
    return final(json.dumps({"type": "final_answer",
                             "thought": f"Singapore is {singapore}°C and Jakarta {jakarta}°C, so I can answer.",
                             "answer": f"{verdict}: it is {singapore}°C in Singapore and {jakarta}°C in Jakarta."}))

react = prompted(text_model([
    final('{"type": "tool_call", "thought": "I need both temperatures; first Jakarta.", '
          '"name": "get_temperature", "arguments": {"city": "Jakarta"}}'),
    final('{"type": "tool_call", "thought": "Now Singapore, to compare.", '
          '"name": "get_temperature", "arguments": {"city": "Singapore"}}'),
    compare,
]), react=True)
warmer = run_agent("Is it currently warmer in Singapore than in Jakarta?", react, tools,
                   Memory("You are a helpful assistant."), tracer=printer())
print(warmer["answer"])

# %% [markdown]
# What ReAct buys: a scratchpad that conditions the next action, a better chance to notice when
# an observation does not match the plan, and a trace that reads like reasoning, which makes
# debugging much easier. What it costs: more tokens per step (slower, dearer, the context grows
# faster), and a caveat: a written thought is just more generated text. It can sound convincing
# and still not be why the model acted. For one-shot lookups a simple loop is enough; for
# multi-step problems (research, multi-hop questions, troubleshooting) ReAct tends to help.
#
# ## Asking for what is missing
#
# Asked to buy "a few" shares, a careful model asks how many rather than inventing a number;
# the user's reply "200." then completes the order. Two runs, one memory:

# %%
orders.clear()
shopping = Memory("You are a helpful assistant.")
buyer = prompted(text_model([
    final('{"type": "final_answer", "thought": "The amount is missing; I must ask, not guess.", '
          '"answer": "How many Microsoft shares would you like to buy?"}'),
    final('{"type": "tool_call", "thought": "200 shares of MSFT at 100 per share.", '
          '"name": "buy_shares", "arguments": {"symbol": "MSFT", "amount": 200, "price": 100}}'),
    final('{"type": "final_answer", "thought": "The order went through.", '
          '"answer": "Your order for 200 Microsoft shares at 100 dollars each has been placed."}'),
]), react=True)
asked = run_agent("Buy a few Microsoft shares for 100 dollar per share.", buyer, tools, shopping)
bought = run_agent("200.", buyer, tools, shopping)
print(asked["answer"])
print(bought["answer"], orders)

# %% [markdown]
# What to keep in the conversation afterwards is a design choice. The memory above holds the
# tool calls and their raw results too. An agent may instead **drop** tool results once a turn
# is answered (keeping only what the user said and the final answers), keep them **raw**
# (complete, but the prompt grows fast; think of a tool that returns a whole document), or keep
# them **summarised** (truncated or condensed first).

# %%
lean = [m for m in shopping.history if m["role"] == "user" or (m["role"] == "assistant" and not m.get("tool_calls"))]
print(len(shopping.history), "messages kept raw;", len(lean), "if tool results are dropped")

# %% [markdown]
# ## Exercise 2: be the model
#
# Write the reply a ReAct model should give to *"Buy 100 shares of Apple stocks!"*: one JSON
# object, with a `"thought"` first, that **asks for the missing price** instead of guessing
# one. Your text goes through the real adapter and the real loop.

# %% tags=["exercise"]
my_reply = ('{"type": "tool_call", "thought": "Apple is AAPL; 100 shares.", "name": "buy_shares", '
            '"arguments": {"symbol": "AAPL", "amount": 100, "price": 180}}')

# %% tags=["solution"]
my_reply = ('{"type": "final_answer", "thought": "The price per share is missing; I ask instead of guessing.", '
            '"answer": "What price per share should I pay for the 100 Apple (AAPL) shares?"}')

# %%
orders.clear()
me = prompted(scripted([final(my_reply), final('{"type": "final_answer", "answer": "Done."}')]), react=True)  # you are the model, in both modes
mine = run_agent("Buy 100 shares of Apple stocks!", me, tools, Memory(""))
my_action, my_problem = parse_action(my_reply)
print(mine, orders)

# %% tags=["check"]
# a well-formed reply is read
assert read[0] == {"type": "final_answer", "answer": "Paris."}, f"read_action gave {read[0]!r} for a plain JSON reply"
# JSON inside a code fence after a sentence is found
assert isinstance(read[1], dict) and read[1].get("name") == "add_numbers", (
    f"read_action gave {read[1]!r}; take the text from the first '{{' to the last '}}' before parsing")
# text without JSON, broken JSON and unknown types give None, not an exception
assert read[2:] == [None, None, None], (
    f"read_action gave {read[2:]}; return None for no JSON, broken JSON (catch ValueError) and "
    "a type other than tool_call or final_answer")
# your reply is valid JSON in the format
assert my_action is not None, f"the adapter could not read your reply: {my_problem}"
# your reply asks for the price instead of buying
assert not my_action.get("tool_calls") and "price" in (my_action.get("content") or "").lower(), (
    f"your reply {my_action}; with no price given, answer with a final_answer that asks for it")
# your reply writes a thought first
assert my_reply.lstrip().startswith('{"type"') and my_reply.find('"thought"') < my_reply.find('"answer"') \
    and my_action.get("thought"), "put a \"thought\" in the object, before the answer"
# nothing was bought without a price
assert orders == [], f"orders placed: {orders}"
# the loop ran the prompted model to a stop with a reason
assert warmer["stopped"] in ("final", "step_limit", "error", "needs_person"), warmer
# the scripted ReAct run compared both temperatures
assert live or warmer["tool_calls"] == 2 and "Singapore" in warmer["answer"], warmer
# the missing amount was asked for, then the order placed
assert live or "How many" in asked["answer"] and bought["stopped"] == "final", (asked, bought)
