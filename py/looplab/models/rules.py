"""A rule-based offline model — a fake brain you can read in one sitting.

`rule_model(messages, tools)` has the shape of every model in Loop Lab: messages in, one
assistant message out. Instead of a neural network it uses a few patterns on the last user
message, and it speaks the real tool-calling format (a `tool_calls` list with ids and JSON
arguments), so the loop cannot tell it from a live model.

What it understands (clauses may be chained with "then"):

    add 10 and 5 · what is 1002 + 4002 · subtract 980 from 1240 · 1310 - 1105
    uppercase hello · remember my name is Alice · what is my name?
    schedule a follow-up: check the April visits · remind me to ...
    what is the temperature in Paris · buy 100 shares of Microsoft for 50 dollars
    "add 10 and 5, then add 3 to the result" (the result of one step feeds the next)

Like a real model it remembers nothing between calls: every decision is worked out again from
the messages it is sent. It only calls tools that are in `tools`; for anything else it says
politely what it can do instead. When a tool needs an argument the task does not give (a price,
an amount), it asks the user rather than guessing.
"""

import json
import re
import zlib
from dataclasses import dataclass, field

NUMBER = r"-?\d+(?:\.\d+)?"
VALUE = rf"(?:{NUMBER}|the result|the answer|it|that)"  # "it"/"the result": the previous step's result

# The tool names the brain looks for, by what it wants to do. The first one present is used.
TOOL_NAMES = {
    "add": ["add", "add_numbers", "calculate"],
    "subtract": ["subtract", "subtract_numbers", "calculate"],
    "upper": ["upper", "uppercase"],
    "remember": ["remember", "save_fact"],
    "recall": ["recall"],
    "schedule": ["schedule", "schedule_task"],
    "temperature": ["get_temperature"],
    "buy": ["buy_shares"],
}
SKILLS = {"add": "add numbers", "subtract": "subtract numbers", "upper": "uppercase text",
          "remember": "remember facts", "schedule": "schedule follow-ups",
          "temperature": "look up temperatures", "buy": "buy shares"}
TICKERS = {"apple": "AAPL", "microsoft": "MSFT", "google": "GOOGL", "alphabet": "GOOGL",
           "amazon": "AMZN", "tesla": "TSLA", "nvidia": "NVDA"}


@dataclass
class Step:
    """One thing the task asks for: a tool to call (`want` with `args`), or a sentence to say."""
    want: str                     # add, subtract, upper, ..., buy; or say / refuse
    args: dict = field(default_factory=dict)
    say: str = ""                 # for say: the reply itself; for refuse: the clause refused


# --- the model --------------------------------------------------------------------------------

def rule_model(messages: list[dict], tools: list[dict] | None = None) -> dict:
    """Choose the next move from the last user message and the tool results since it."""
    tools = tools or []
    start = last_user_index(messages)
    if start is None:
        return say("I have no question to answer yet.")
    task = text(messages[start].get("content"))
    if not task.strip():
        return say("What would you like me to do?")
    results = results_since(messages, start)       # [(tool name, arguments, result text)], in order
    plan = (answer_to_question(task, messages, start)
            or [understand(clause) for clause in clauses(task)] or [Step("refuse", say=task)])

    # Walk the plan in order. A step that already ran is read from its result; the first tool
    # step that has not run yet is asked for, and that is this call's reply. When every step
    # has run, the sentences collected along the way are the final answer.
    spoken, previous = [], None
    for step in plan:
        if step.want == "say":
            spoken.append(step.say)
            continue
        if step.want == "refuse":
            spoken.append(f"Sorry, I can't help with \"{step.say}\". I can {skills(tools)}.")
            continue
        tool = pick_tool(step.want, tools)
        if tool is None:
            spoken.append(f"I can't {SKILLS.get(step.want, step.want)} here: I have no tool for it."
                          if step.want != "recall" else recall_from_context(step.args["key"], messages))
            continue
        if results:                                # this step already ran: read its result
            name, arguments, result = results.pop(0)
            spoken.append(describe(step, arguments, result))
            previous = result
            continue
        arguments, missing = fill_arguments(step, tool, previous)
        if missing:
            spoken.append(ask_for(step, missing))
            break
        return tool_call(tool["name"], arguments, messages)
    return say(" ".join(s for s in spoken if s) or "Done.")


# --- reading the messages ---------------------------------------------------------------------

def text(content) -> str:
    """A message's content as text (content parts joined with spaces)."""
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def last_user_index(messages: list[dict]) -> int | None:
    """The index of the newest user message, or None."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return None


def results_since(messages: list[dict], start: int) -> list[tuple[str, dict, str]]:
    """The tool calls made since the user's message, each with its arguments and result."""
    asked, out = {}, []
    for message in messages[start + 1:]:
        for call in message.get("tool_calls") or []:
            fn = call.get("function", {})
            try:
                arguments = json.loads(fn.get("arguments") or "{}")
            except (TypeError, ValueError):
                arguments = {}
            asked[call.get("id")] = (fn.get("name"), arguments)
        if message.get("role") == "tool" and message.get("tool_call_id") in asked:
            name, arguments = asked[message["tool_call_id"]]
            out.append((name, arguments, text(message.get("content"))))
    return out


def pick_tool(want: str, tools: list[dict]) -> dict | None:
    """The first tool present that does what the step wants, as {"name", "parameters"}."""
    by_name = {}
    for schema in tools:
        fn = schema.get("function", schema) if isinstance(schema, dict) else {}
        if isinstance(fn, dict) and fn.get("name"):
            by_name[fn["name"]] = fn.get("parameters") or {}
    for name in TOOL_NAMES.get(want, []):
        if name in by_name:
            return {"name": name, "parameters": by_name[name]}
    return None


# --- understanding the task -------------------------------------------------------------------

def clauses(task: str) -> list[str]:
    """Split a task into its parts: on "then", on ";" and between sentences."""
    task = re.sub(r"(\d),(\d{3})\b", r"\1\2", task)  # 1,240 -> 1240
    parts = re.split(r"\s*(?:,?\s*\band then\b|,?\s*\bthen\b|;|(?<=[.?!])\s+)\s*", task,
                     flags=re.IGNORECASE)
    return [p.strip(" ,.!") for p in parts if p and p.strip(" ,.!?")]


def understand(clause: str) -> Step:
    """One clause -> one Step. The patterns are tried in order; the first that matches wins."""
    c = clause.strip().rstrip("?!. ")
    low = c.lower()
    m = (re.search(r"^(?:please )?(?:schedule|plan)(?: an?)?(?: follow-?up| task| reminder)?(?: to| for|:)?\s+(.+)",
                   c, re.IGNORECASE)
         or re.search(r"\bremind me to (.+)", c, re.IGNORECASE))
    if m:
        return Step("schedule", {"task": m[1].strip()})
    m = re.search(r"\bremember (?:that )?(?:my |the )?(.+?) (?:is|are|=) (.+)", c, re.IGNORECASE)
    if m:
        return Step("remember", {"key": m[1].strip(), "value": m[2].strip("'\" ")})
    m = re.search(r"\b(?:what(?:'s| is| are)|tell me|do you know|recall) my (.+)", low)
    if m or re.search(r"\bwho am i\b", low):
        return Step("recall", {"key": m[1].strip() if m else "name"})
    m = re.search(r"^(?:and |so |well,? )?my (.+?) is (.+)", c, re.IGNORECASE)
    if m:
        key, value = m[1].strip(), m[2].strip("'\" ")
        return Step("say", say=f"Nice to meet you, {value}." if key.lower() == "name"
                    else f"Noted: your {key} is {value}.")
    m = re.search(rf"\bsubtract ({VALUE}) from ({VALUE})", low)
    if m:
        return Step("subtract", {"a": m[2], "b": m[1]})
    m = (re.search(rf"(?<![\w-])({VALUE})\s*(?:-|\bminus\b)\s*({VALUE})(?![\w-])", low)
         or re.search(rf"\b(?:difference between|subtract) ({VALUE}) and ({VALUE})", low))
    if m:
        return Step("subtract", {"a": m[1], "b": m[2]})
    m = (re.search(rf"\badd ({VALUE}) (?:and|to|plus) ({VALUE})", low)
         or re.search(rf"(?<![\w-])({VALUE})\s*(?:\+|\bplus\b)\s*({VALUE})(?![\w-])", low)
         or re.search(rf"\bsum of ({VALUE}) and ({VALUE})", low))
    if m:
        return Step("add", {"a": m[1], "b": m[2]})
    m = (re.search(r"\b(?:uppercase|upper-case|upper|capitali[sz]e|shout)\s+(?:the (?:text|word)s?\s+)?(.+)",
                   c, re.IGNORECASE)
         or re.search(r"\bmake (.+?) (?:uppercase|upper case|capitals)", c, re.IGNORECASE))
    if m:
        return Step("upper", {"text": m[1].strip("'\" ")})
    m = re.search(r"\btemperature (?:in|at|for) ([a-z][a-z .'-]*?)(?: right now| now| today)?$", low)
    if m:
        return Step("temperature", {"city": m[1].strip().title()})
    m = re.search(r"\bbuy\b(?: (\d+|a few|some))? (?:shares? of |stocks? of )?([a-z][\w.&-]*)"
                  rf"(?: shares| stocks?)?(?:.*?(?:for|at) \$?({NUMBER}))?", low)
    if m:
        amount = int(m[1]) if m[1] and m[1].isdigit() else None
        price = number(m[3]) if m[3] else None
        return Step("buy", {"symbol": TICKERS.get(m[2], m[2].upper()), "amount": amount, "price": price})
    if re.fullmatch(r"(?:hi|hello|hey)(?: there)?", low):
        return Step("say", say="Hello!")
    return Step("refuse", say=clause)


def answer_to_question(task: str, messages: list[dict], start: int) -> list[Step] | None:
    """A bare value ("200.") answering our question: the earlier task, with the gap filled in."""
    if not re.fullmatch(rf"\s*\$?{NUMBER}\s*[.!]?\s*", task):
        return None
    earlier = [i for i in range(start) if messages[i].get("role") == "user"]
    asked = any(m.get("role") == "assistant" and text(m.get("content")).rstrip().endswith("?")
                for m in messages[earlier[-1] + 1:start]) if earlier else False
    if not asked:
        return None
    plan = [understand(c) for c in clauses(text(messages[earlier[-1]].get("content")))]
    value = number(re.search(NUMBER, task)[0])
    for step in plan:
        gap = next((k for k, v in step.args.items() if v is None), None)
        if gap:
            step.args[gap] = value
            return plan
    return None


def number(value: str):
    """'5' -> 5, '2.5' -> 2.5 (whole numbers stay integers, so 10 + 5 prints as 15)."""
    n = float(value)
    return int(n) if n.is_integer() else n


def fill_arguments(step: Step, tool: dict, previous: str | None) -> tuple[dict, str | None]:
    """The JSON arguments for the chosen tool, and the name of an argument the task did not give."""
    props = list((tool["parameters"].get("properties") or {}).keys())
    args = dict(step.args)
    for key in ("a", "b", "text"):
        if args.get(key) in ("the result", "the answer", "it", "that"):
            args[key] = previous if previous is not None else args[key]
    if step.want in ("add", "subtract"):
        try:
            a, b = number(str(args["a"])), number(str(args["b"]))
        except ValueError:
            return {}, "numbers"
        names = [p for p in props if p != "operation"][:2] or ["a", "b"]
        out = dict(zip(names, [a, b]))
        if "operation" in props:
            out["operation"] = step.want
        return out, None
    if step.want == "remember" and not {"key", "value"} <= set(props) and props:
        return {props[0]: f"{args['key']} is {args['value']}"}, None
    if step.want == "buy":
        for key in ("amount", "price", "symbol"):
            if args.get(key) is None:
                return {}, key
    return {k: v for k, v in args.items() if v is not None}, None


def ask_for(step: Step, missing: str) -> str:
    """The question to ask the user when the task leaves out an argument the tool needs."""
    if step.want == "buy" and missing == "price":
        return f"What price per share should I pay for the {step.args['amount']} {step.args['symbol']} shares?"
    if step.want == "buy" and missing == "amount":
        return f"How many {step.args['symbol']} shares would you like to buy?"
    return f"I need the {missing} to do that. What {missing} should I use?"


def recall_from_context(key: str, messages: list[dict]) -> str:
    """Answer "what is my <key>?" from what the messages say: notes, facts, earlier turns."""
    found = None
    k = re.escape(key.lower())
    note = re.compile(rf"\"?\b{k}\"?\s*[:=]\s*\"?([^\"\n,;}}]+)")       # name: Alice · "name": "Alice"
    sentence = re.compile(rf"\b(?:user's|my|your) {k} is ([^.,;!?\n]+)", re.IGNORECASE)
    for message in messages:
        body = text(message.get("content"))
        for pattern in (note, sentence):
            for m in pattern.finditer(body):
                found = m[1].strip()
        for call in message.get("tool_calls") or []:
            try:
                arguments = json.loads(call.get("function", {}).get("arguments") or "{}")
            except (TypeError, ValueError):
                continue
            if isinstance(arguments, dict) and str(arguments.get("key", "")).lower() == key.lower():
                found = str(arguments.get("value"))
    return f"Your {key} is {found}." if found else f"I don't know your {key} yet."


def describe(step: Step, arguments: dict, result: str) -> str:
    """One sentence about a step that ran, from its tool result."""
    if result.startswith("error:"):
        return f"I tried to {SKILLS.get(step.want, step.want)} but the tool said: {result}"
    if step.want in ("add", "subtract"):
        a, b = [v for k, v in arguments.items() if k != "operation"][:2]
        return f"{a} {'+' if step.want == 'add' else '-'} {b} = {result}."
    if step.want == "upper":
        return result
    if step.want == "remember":
        return f"I'll remember that your {step.args['key']} is {step.args['value']}."
    if step.want == "recall":
        return f"Your {step.args['key']} is {result}."
    if step.want == "schedule":
        return f"I scheduled a follow-up: {step.args['task']}."
    if step.want == "temperature":
        return f"It is {result} in {step.args['city']}."
    return result


# --- writing the reply ------------------------------------------------------------------------

def say(content: str) -> dict:
    """A final answer: an assistant message with text and no tool calls."""
    return {"role": "assistant", "content": content}


def tool_call(name: str, arguments: dict, messages: list[dict]) -> dict:
    """An assistant message asking for one tool, in the chat-completions format."""
    # The id is derived from the conversation, so the same messages always give the same id
    # (deterministic) and a new step gives a new one.
    seen = json.dumps([m.get("content") for m in messages] + [name, arguments], default=str)
    call_id = f"call_{zlib.crc32(seen.encode()):08x}"
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def skills(tools: list[dict]) -> str:
    """What the brain can do with these tools, as a phrase: "add numbers, uppercase text"."""
    can = [SKILLS[w] for w in SKILLS if pick_tool(w, tools)]
    if not can:
        return "only chat: I have no tools"
    return can[0] if len(can) == 1 else ", ".join(can[:-1]) + " and " + can[-1]
