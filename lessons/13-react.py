# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: a short thought before each action, and what it costs
# ---

# %% [markdown]
# # 13 · ReAct: a short reason before each action
#
# A **ReAct** agent ("reason + act") writes a short **thought** before every action: what it
# knows, what is missing, what it will do next. Then it acts, the program runs the tool, and
# the result comes back as the **observation**. Thought → action → observation, until the
# answer.
#
# With the JSON actions of lesson 12 this is one more field, written *before* the tool or the
# answer, so the model puts its reason down before it commits:
#
# ```
# {"type": "tool_call", "thought": "I need both temperatures; first Jakarta.", "name": "get_temperature", "arguments": {"city": "Jakarta"}}
# ```
#
# The thought stays in the conversation, so the next step sees the plan, not only the actions.

# %%
import json
import zlib
from looplab import Toolbox, Memory, run_agent, printer
from looplab.models import pick_model, model_mode, final, scripted
from looplab.models.prompted import prompted, parse_action, system_prompt
from looplab import expect


def text_model(offline):
    """A model called without tools: the scripted replies offline, the live or local model otherwise."""
    if model_mode() == "live":
        from looplab.models.live import live_model
        return live_model("chat")
    return pick_model(offline)

tools = Toolbox()
orders = []

@tools.tool
def get_temperature(city: str) -> str:
    "Return the current temperature of a city."
    return f"{zlib.crc32(city.lower().encode()) % 500 / 10 - 15:.1f}°C"   # made up, the same every run

@tools.tool
def buy_shares(symbol: str, amount: int, price: float) -> str:
    "Buy an amount of shares of a stock ticker symbol (such as AAPL) at a price per share."
    orders.append((symbol, amount, price))
    return f"Order for {amount} {symbol} shares at {price} per share successfully placed"

print(system_prompt("You are a helpful assistant.", tools.schemas(), react=True))

# %% [markdown]
# Two things in that prompt are deliberate. It asks for a **short reason**, one or two
# sentences, not a long "think step by step": every thought costs tokens on every step, and a
# page of reasoning is no more honest than a sentence. And it forbids **inventing an
# observation**. Having written "I will look up the temperature", a text model can go on to
# write the temperature too; the observation must come from the tool, never from the model.
#
# ## Two lookups, then a comparison
#
# The question below needs the same tool twice, with different arguments, and then a
# comparison. The trace shows each thought beside its action.

# %%
def compare_temperatures(messages, tools_):
    seen = [m["content"].rsplit(" ", 1)[-1] for m in messages
            if m["role"] == "user" and str(m["content"]).startswith("Tool result from get_temperature")]
    jakarta, singapore = (float(t.rstrip("°C")) for t in seen[:2])
    verdict = "Yes" if singapore > jakarta else "No"
    return final(json.dumps({"type": "final_answer",
                             "thought": f"Singapore is {singapore}°C and Jakarta {jakarta}°C, so I can answer.",
                             "answer": f"{verdict}: it is {singapore}°C in Singapore and {jakarta}°C in Jakarta."}))

seen_by_model = []

def second_call(messages, tools_):
    seen_by_model.extend(messages)             # keep what the model is sent on its second call
    return final('{"type": "tool_call", "thought": "Now Singapore, to compare.", '
                 '"name": "get_temperature", "arguments": {"city": "Singapore"}}')

react = prompted(text_model([
    final('{"type": "tool_call", "thought": "I need both temperatures; first Jakarta.", '
          '"name": "get_temperature", "arguments": {"city": "Jakarta"}}'),
    second_call,
    compare_temperatures,
]), react=True)

# %% [markdown] tags=["predict"]
# On its **second** call, after the Jakarta lookup, what does the model see of its first step?
#
# - [ ] only the observation, "Tool result from get_temperature: ..."
# - [x] its own first reply as JSON, thought included, then the observation as a user message
# - [ ] nothing: each call starts afresh
#
# The model keeps nothing between calls (lesson 6), so the program sends the whole record. The
# adapter writes each earlier action back as the JSON the model wrote, thought and all: that is
# how the plan carries from step to step.

# %%
warmer = run_agent("Is it currently warmer in Singapore than in Jakarta?", react, tools,
                   Memory("You are a helpful assistant."), tracer=printer())
print(warmer["answer"])
for message in seen_by_model[1:]:
    print(f"  {message['role']:9} {message['content']}")

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
# ## Exercise 1: be the model
#
# Write the reply a ReAct model should give to *"Buy 100 shares of Apple stocks!"*: one JSON
# object whose `"thought"` comes before the answer, and which **asks for the missing price**
# instead of guessing one. Your text goes through the real adapter and the real loop.

# %% tags=["exercise"]
my_reply = ('{"type": "tool_call", "name": "buy_shares", "arguments": {"symbol": "AAPL", "amount": 100, '
            '"price": 180}, "thought": "Apple is AAPL; 100 shares."}')

# %% [markdown] tags=["hint"]
# Which argument of `buy_shares` does the request leave out? A model that follows the rules does
# not call the tool yet: it answers, and its answer is a question.

# %% [markdown] tags=["hint"]
# That is a `final_answer`, with the `"thought"` key written before the `"answer"` key and an
# answer that mentions the price.

# %% [markdown] tags=["hint"]
# ```python
# my_reply = ('{"type": "final_answer", "thought": "The price per share is missing; I ask instead of guessing.", '
#             '"answer": "What price per share should I pay for the 100 Apple (AAPL) shares?"}')
# ```

# %% tags=["wrong"]
# wrong: asks for the price, but writes the thought after the answer
# expect: write it before the answer
# replaces: my_reply
my_reply = ('{"type": "final_answer", "answer": "What price per share should I pay for the 100 Apple (AAPL) shares?", '
            '"thought": "The price per share is missing; I ask instead of guessing."}')

# %% tags=["wrong"]
# wrong: thinks first, then guesses a price and buys
# expect: final_answer that asks for it
# replaces: my_reply
my_reply = ('{"type": "tool_call", "thought": "Apple is AAPL; I will pay the usual price.", "name": "buy_shares", '
            '"arguments": {"symbol": "AAPL", "amount": 100, "price": 180}}')

# %% tags=["solution"]
my_reply = ('{"type": "final_answer", "thought": "The price per share is missing; I ask instead of guessing.", '
            '"answer": "What price per share should I pay for the 100 Apple (AAPL) shares?"}')

# %%
orders.clear()
me = prompted(scripted([final(my_reply), final('{"type": "final_answer", "answer": "Done."}')]), react=True)  # you are the model, in every mode
mine = run_agent("Buy 100 shares of Apple stocks!", me, tools, Memory(""))
my_action, my_problem = parse_action(my_reply)
print(mine, orders)

def key_order(text):
    """The top-level keys of the JSON object in a text, in the order they were written ([] if none)."""
    start, end = text.find("{"), text.rfind("}")
    try:
        pairs = json.loads(text[start:end + 1], object_pairs_hook=lambda pairs: pairs)
    except ValueError:
        return []
    return [key for key, _ in pairs] if isinstance(pairs, list) and all(isinstance(p, tuple) for p in pairs) else []

def thought_first(text):
    """Does the object have a thought, written before the tool's name and arguments or the answer?"""
    keys = key_order(text)
    return "thought" in keys and all(keys.index("thought") < keys.index(k)
                                     for k in ("name", "arguments", "answer") if k in keys)

# %% [markdown]
# ## Exercise 2: check a ReAct reply
#
# The adapter reads a reply and uses its action. A stricter reader also holds the model to the
# ReAct rules. Write `check_react(text)`: return `None` when the text holds one JSON object
# that follows them, else a short sentence saying what is wrong:
#
# - no JSON object can be read (the sentence mentions "JSON");
# - no `"thought"`, or an empty one (it mentions "thought");
# - the thought comes after the tool's `"name"` or `"arguments"`, or after the `"answer"` (it
#   mentions "thought");
# - the model wrote an observation itself: an `"observation"` key, or the text "Tool result
#   from" anywhere in the reply (it mentions "observation").
#
# `key_order(text)` above gives the object's keys in the order they were written.

# %% tags=["exercise"]
def check_react(text):
    """None when the reply is one JSON object that follows the ReAct rules, else what is wrong."""
    action = json.loads(text)
    if "thought" not in action:
        return "the reply has no thought"
    return None

# %% [markdown] tags=["hint"]
# Start with what the model must not do at all (an observation of its own), then read the JSON
# without letting it raise (lesson 12's `read_action` did the same), then look at the thought.

# %% [markdown] tags=["hint"]
# `key_order` gives the keys in the order written, and an empty list when there is no object. The
# thought is late when its position in that list comes after the position of `name`, `arguments`
# or `answer`.

# %% [markdown] tags=["hint"]
# ```python
# def check_react(text):
#     keys = key_order(text)
#     if "observation" in keys or "Tool result from" in text:
#         return "the reply writes an observation itself; only the tool gives one"
#     if not keys:
#         return "the reply holds no JSON object"
#     start, end = text.find("{"), text.rfind("}")
#     thought = json.loads(text[start:end + 1]).get("thought")
#     if not isinstance(thought, str) or not thought.strip():
#         return "the reply has no thought"
#     if any(keys.index("thought") > keys.index(k) for k in ("name", "arguments", "answer") if k in keys):
#         return "the thought comes after the action; write it first"
#     return None
# ```

# %% tags=["wrong"]
# wrong: reads the JSON before making sure there is some, so text that is not JSON raises
# expect: instead of raising
# patch:
# -    if not keys:
# -        return "the reply holds no JSON object"

# %% tags=["wrong"]
# wrong: checks that there is a thought but not where it stands
# expect: missing, an empty and a late thought
# patch:
# -    if any(keys.index("thought") > keys.index(k) for k in ("name", "arguments", "answer") if k in keys):
# -        return "the thought comes after the action; write it first"

# %% tags=["wrong"]
# wrong: looks for an observation key only, not for a tool result written in the text
# expect: 'Tool result from'
# patch:
# -    if "observation" in keys or "Tool result from" in text:
# +    if "observation" in keys:

# %% tags=["solution"]
def check_react(text):
    """None when the reply is one JSON object that follows the ReAct rules, else what is wrong."""
    keys = key_order(text)
    if "observation" in keys or "Tool result from" in text:
        return "the reply writes an observation itself; only the tool gives one"
    if not keys:
        return "the reply holds no JSON object"
    start, end = text.find("{"), text.rfind("}")
    thought = json.loads(text[start:end + 1]).get("thought")
    if not isinstance(thought, str) or not thought.strip():
        return "the reply has no thought"
    if any(keys.index("thought") > keys.index(k) for k in ("name", "arguments", "answer") if k in keys):
        return "the thought comes after the action; write it first"
    return None

# %%
REPLIES = {
    "good call": '{"type": "tool_call", "thought": "First Jakarta.", "name": "get_temperature", "arguments": {"city": "Jakarta"}}',
    "thought before type": '{"thought": "I can answer.", "type": "final_answer", "answer": "Yes."}',
    "in a fence": 'Here: ```json\n{"type": "final_answer", "thought": "Done.", "answer": "Yes."}\n```',
    "no thought": '{"type": "final_answer", "answer": "Yes."}',
    "empty thought": '{"type": "final_answer", "thought": " ", "answer": "Yes."}',
    "thought last": '{"type": "tool_call", "name": "get_temperature", "arguments": {"city": "Oslo"}, "thought": "Oslo."}',
    "invented observation": '{"type": "tool_call", "thought": "Oslo.", "name": "get_temperature", '
                            '"arguments": {"city": "Oslo"}, "observation": "It is 4°C."}',
    "observation as text": '{"type": "final_answer", "thought": "Got it.", "answer": "Tool result from get_temperature: 4°C, so no."}',
    "not JSON": "I think it is warmer in Singapore.",
    "broken JSON": '{"type": "final_answer", "thought": ',
}

def attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

verdicts = {label: attempt(check_react, text) for label, text in REPLIES.items()}
for label, verdict in verdicts.items():
    print(f"{label:21} -> {verdict or 'ok'}")

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference


def read_by_the_adapter(reply):
    """What the real adapter makes of a reply: a call or an answer, a price asked for, the thought first."""
    action, problem = parse_action(reply)
    action = action or {}
    return {"it calls a tool": bool(action.get("tool_calls")),
            "it asks for the price": "price" in str(action.get("content") or "").lower(),
            "its thought comes first": thought_first(reply)}


FAULTS = {"good": None, "no thought": "thought", "empty thought": "thought", "late thought": "thought",
          "observation key": "observation", "tool result text": "observation", "not JSON": "JSON",
          "broken JSON": "JSON"}


def react_text(d):
    fault = d.pick(list(FAULTS))
    keys = d.shuffled(["name", "arguments"] if d.maybe() else ["answer"])
    thought_at = 0 if fault != "late thought" else len(keys)
    keys.insert(d.number(0, thought_at) if fault != "late thought" else thought_at, "thought")
    if d.maybe():
        keys.insert(0, "type")
    values = {"type": "tool_call" if "name" in keys else "final_answer", "thought": "I check.", "name": "get_temperature",
              "arguments": {"city": "Oslo"}, "answer": "It is 4°C." if fault != "tool result text"
              else "Tool result from get_temperature: 4°C."}
    if fault == "empty thought":
        values["thought"] = d.pick(["", "  "])
    if fault == "no thought":
        keys.remove("thought")
    if fault == "observation key":
        keys.insert(d.number(1, len(keys)), "observation")
        values["observation"] = "It is 4°C."
    text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(values[k])}" for k in keys) + "}"
    if fault == "broken JSON":
        text = text[: d.number(1, len(text) - 2)]
    if fault == "not JSON":
        text = d.pick(["It is warmer in Singapore.", "", "thought: yes"])
    if d.maybe(0.3):
        text = "Here: ```json\n" + text + "\n```"
    return Case((text, FAULTS[fault]), f"a reply with {fault}: {text[:70]!r}")


def judging(check_fn, text, fault):
    verdict = check_fn(text)
    return {"the verdict": verdict if verdict is None else Said(
        repr(verdict), ("a problem", fault is None or fault in verdict))}


REACT_TEXTS = generate(react_text, count=120, edges=[Case((
    '{"type": "final_answer", "thought": "I know.", "answer": "Yes."}.', None), "a full stop right after the JSON")])
# given: your reply is valid JSON in the format
assert my_action is not None, f"the adapter could not read your reply: {my_problem}"
# your reply asks for the price instead of buying
assert not my_action.get("tool_calls") and "price" in (my_action.get("content") or "").lower(), (
    f"your reply became {my_action}; with no price given, answer with a final_answer that asks for it")
# your reply writes a thought before the answer
assert thought_first(my_reply), (
    f"the keys of your reply are {key_order(my_reply)}; give it a \"thought\" and write it before the answer")
# the adapter reads your reply as it reads the lesson's: an answer asking for the price, thought first
assert (reply_found := compare(my_reply, reference("my_reply"), [Case((), "your reply")],
                               observe=read_by_the_adapter)), reply_found
# nothing was bought without a price
assert orders == [], f"orders placed: {orders}"
# well-formed replies pass the check, the thought first or after the type, in a fence or not
assert [verdicts[k] for k in ("good call", "thought before type", "in a fence")] == [None, None, None], (
    f"check_react gave {[verdicts[k] for k in ('good call', 'thought before type', 'in a fence')]} for three "
    "good replies; return None when the object has a thought written before the action")
# a missing, empty or late thought is refused with a sentence about the thought
assert all(isinstance(verdicts[k], str) and "thought" in verdicts[k] and not verdicts[k].startswith("raised")
           for k in ("no thought", "empty thought", "thought last")), (
    f"check_react gave {[verdicts[k] for k in ('no thought', 'empty thought', 'thought last')]} for a missing, "
    "an empty and a late thought; each needs a sentence that mentions the thought")
# an observation the model wrote itself is refused
assert all(isinstance(verdicts[k], str) and "observation" in verdicts[k]
           for k in ("invented observation", "observation as text")), (
    f"check_react gave {[verdicts[k] for k in ('invented observation', 'observation as text')]}; an "
    "'observation' key or the words 'Tool result from' mean the model invented a tool's result")
# text that is not JSON is refused, never raised
assert all(isinstance(verdicts[k], str) and "JSON" in verdicts[k] and not verdicts[k].startswith("raised")
           for k in ("not JSON", "broken JSON")), (
    f"check_react gave {[verdicts[k] for k in ('not JSON', 'broken JSON')]}; return a sentence about the "
    "missing JSON object instead of raising")
# check_react judges as the lesson's does, with the right words, on many replies
assert (react_found := compare(check_react, reference("check_react"), REACT_TEXTS, observe=judging)), react_found
# given: the loop ran the prompted model to a stop with a reason
assert warmer["stopped"] in ("final", "step_limit", "error", "needs_person"), warmer
# given: the scripted ReAct run compared both temperatures
expect(warmer["tool_calls"] == 2 and "Singapore" in (warmer["answer"] or ""),
       f"the ReAct run gave {warmer}",
       observed=f"the model's run ended {warmer['stopped']!r} after {warmer['tool_calls']} tool calls with "
                f"{warmer['answer']!r}; the prepared replies look up both cities, then compare")
# given: on its second call the model saw its first thought again
expect(any("I need both temperatures" in str(m.get("content")) for m in seen_by_model),
       "the second call did not carry the first thought",
       observed="the model wrote its own first step, so the prepared thought was not there to look for")
# given: the missing amount was asked for, then the order placed
expect("How many" in (asked["answer"] or "") and bought["stopped"] == "final",
       f"the shopping runs gave {asked} and {bought}",
       observed=f"the model answered {asked['answer']!r}, then the run with '200.' ended {bought['stopped']!r}; "
                "the prepared replies ask how many, then buy 200")
