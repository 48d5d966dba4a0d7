# ---
# jupyter:
#   looplab:
#     core: the policy gate, rules on what goes in and what comes out, and the approval a person gives
# ---

# %% [markdown]
# # 10 · Policy: gates, and a person's yes
#
# An agent that can act can also act wrongly. Three guards sit around the loop, each at a point
# where your program, not the model, is in control:
#
# ```
#  task ──▶ [input gate] ──▶ loop: model ⇄ tools ──▶ [output gate] ──▶ answer
#                                     │
#                      a risky tool? [a person approves]
# ```
#
# - the **input gate** refuses a task before the model ever sees it;
# - the **output gate** checks the answer before a person sees it, and may **redact** parts;
# - **approval**: a tool that changes the world waits for a person's yes.
#
# You have met these as a chat app's refusals and safety filters, and as the "Allow this
# action?" button.

# %%
import json
import zlib
from looplab import Toolbox, Memory, run_agent, printer, Gate, forbid
from looplab.models import pick_model, scripted, final
from looplab.models.rules import rule_model
from looplab import expect


# %% [markdown]
# ## Rules and a gate
#
# A **rule** is a function of the text: it returns `True` when the text may pass, or a reason
# (a string) when it may not. A **gate** runs its rules in order, and the first refusal wins.
#
# Two details make a gate trustworthy. Only `True` lets a text through: a rule that returns
# `None` (it forgot its `return`) or `False` refuses. And a rule that **crashes** refuses too:
# a guard must **fail closed**, because a bug in a guard must not open the door.

# %%
def no_delete(text):
    return "delete" not in text.lower() or "blocked: deleting needs a person, not a chatbot"

def short(text):
    return len(text) < 500 or "blocked: the task is too long"

def broken_rule(text):
    raise RuntimeError("the rule has a bug")

print(no_delete("add 10 and 5"), "|", no_delete("delete the database"))

# %% [markdown]
# ## Exercise 1: the gate
#
# Write `check_gate(text, rules)`. It returns `(True, None)` when every rule returns `True`,
# and `(False, reason)` for the first rule that does not: its reason when it returned one, or
# a sentence of yours when it returned something else or raised. Rules after the first refusal
# are not run.

# %% tags=["exercise"]
def check_gate(text, rules):
    """(True, None) when every rule lets the text pass, else (False, the first refusal's reason)."""
    for rule in rules:
        if rule(text) is False:
            return False, "refused"
    return True, None

# %% [markdown] tags=["hint"]
# Which values should refuse? Not only `False`: think of a rule that returns nothing, or returns
# its reason. And what should happen to the gate when a rule itself crashes?

# %% [markdown] tags=["hint"]
# Keep what the rule returned: when it is a non-empty string it is the reason; otherwise make one
# that names the rule, such as `f"refused by {rule.__name__}"`.

# %% [markdown] tags=["hint"]
# ```python
# def check_gate(text, rules):
#     for rule in rules:
#         try:
#             result = rule(text)
#         except Exception as exc:
#             return False, f"the rule {rule.__name__} failed: {exc}"
#         if result is not True:
#             return False, result if isinstance(result, str) and result else f"refused by {rule.__name__}"
#     return True, None
# ```

# %% tags=["wrong"]
# wrong: compares with `is False`, so a rule that returns None lets the text through
# expect: only True lets a text pass
# patch:
# -        if result is not True:
# +        if result is False or isinstance(result, str):

# %% tags=["wrong"]
# wrong: no try around the rule, so a crashing rule crashes the gate
# expect: catch the exception and refuse
# patch:
# -        try:
# -            result = rule(text)
# -        except Exception as exc:                 # a broken rule fails closed
# -            return False, f"the rule {rule.__name__} failed: {exc}"
# +        result = rule(text)

# %% tags=["solution"]
def check_gate(text, rules):
    """(True, None) when every rule lets the text pass, else (False, the first refusal's reason)."""
    for rule in rules:
        try:
            result = rule(text)
        except Exception as exc:                 # a broken rule fails closed
            return False, f"the rule {rule.__name__} failed: {exc}"
        if result is not True:
            return False, result if isinstance(result, str) and result else f"refused by {rule.__name__}"
    return True, None

# %%
ran = []

def counted(text):
    ran.append(text)
    return True

def forgetful(text):
    if "x" in text:
        return True                              # and for any other text, it returns None

def attempt(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

GATE_CASES = {
    "no rules": attempt(check_gate, "anything", []),
    "all pass": attempt(check_gate, "add 10 and 5", [no_delete, short, counted]),
    "one refuses": attempt(check_gate, "delete the database", [short, no_delete]),
    "first refusal wins": attempt(check_gate, "delete " + "x" * 600, [no_delete, short, counted]),
    "returns None": attempt(check_gate, "hello", [forgetful]),
    "returns False": attempt(check_gate, "hello", [lambda text: False]),
    "raises": attempt(check_gate, "anything", [broken_rule, counted]),
}
for label, verdict in GATE_CASES.items():
    print(f"{label:18} -> {verdict}")
print("counted ran on:", [t[:12] for t in ran])

# %% [markdown]
# ## Exercise 2: your rules
#
# Now the rules themselves. Write
#
# - `INPUT_RULES`, refusing a task that mentions "delete" or "drop table", in any case, each
#   with a reason that starts with `blocked:`;
# - `OUTPUT_RULES`, refusing an answer that mentions a password, or that contains an e-mail
#   address (something like `name@example.org`).
#
# Both are lists of functions. A rule may be a `def` or a `lambda`.

# %% tags=["exercise"]
INPUT_RULES = []
OUTPUT_RULES = []

# %% [markdown] tags=["hint"]
# `no_delete` above is one input rule already: read how it returns either `True` or its reason,
# and write the others the same way.

# %% [markdown] tags=["hint"]
# Lower-case the text first so "DROP TABLE" is caught. For the e-mail address, the module `re`
# helps: `re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", text)` finds one.

# %% [markdown] tags=["hint"]
# ```python
# import re
#
# INPUT_RULES = [
#     lambda t: "delete" not in t.lower() or "blocked: deleting data needs a person",
#     lambda t: "drop table" not in t.lower() or "blocked: dropping a table needs a person",
# ]
# OUTPUT_RULES = [
#     lambda t: "password" not in t.lower() or "redacted: the answer mentions a password",
#     lambda t: not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", t) or "redacted: the answer holds an e-mail address",
# ]
# ```

# %% tags=["wrong"]
# wrong: looks for the words without lower-casing, so "DELETE" gets through
# expect: in any case
# replaces: INPUT_RULES
INPUT_RULES = [
    lambda t: "delete" not in t or "blocked: deleting data needs a person",
    lambda t: "drop table" not in t or "blocked: dropping a table needs a person",
]

# %% tags=["wrong"]
# wrong: forgets the e-mail rule
# expect: OUTPUT_RULES let through chris@example.org
# patch:
# -import re
# -
# @@
# -    lambda t: not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", t) or "redacted: the answer holds an e-mail address",

# %% tags=["wrong"]
# wrong: the input rules refuse with False, so the reason does not say blocked
# expect: reason starting 'blocked:'
# replaces: INPUT_RULES
INPUT_RULES = [
    lambda t: "delete" not in t.lower(),
    lambda t: "drop table" not in t.lower(),
]

# %% tags=["solution"]
import re

INPUT_RULES = [
    lambda t: "delete" not in t.lower() or "blocked: deleting data needs a person",
    lambda t: "drop table" not in t.lower() or "blocked: dropping a table needs a person",
]
OUTPUT_RULES = [
    lambda t: "password" not in t.lower() or "redacted: the answer mentions a password",
    lambda t: not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", t) or "redacted: the answer holds an e-mail address",
]

# %% [markdown]
# ## The gates around the loop
#
# The input gate sits before the loop, the output gate after it. Here both are your
# `check_gate` with your rules, around `run_agent`:

# %%
box = Toolbox()

@box.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

def guarded(task, model):
    """Your gates around the loop: the answer, or why it was held back."""
    ok, reason = check_gate(task, INPUT_RULES)
    if not ok:
        return f"BLOCKED: {reason}"
    result = run_agent(task, model, box, Memory("Be concise."))
    ok, reason = check_gate(result["answer"] or "", OUTPUT_RULES)
    return result["answer"] if ok else f"REDACTED: {reason}"

never_called = scripted([])                       # raises if the model is asked anything
print(attempt(guarded, "Delete the database, please.", never_called))
print(attempt(guarded, "What is the admin password?", pick_model([final("The admin password: hunter2.")])))
print(attempt(guarded, "add 10 and 5", pick_model(rule_model)))

# %% [markdown]
# ## The hardened version: `Gate`
#
# `looplab.Gate` (in `looplab/policy.py`) is the same contract: rules that return `True` or a
# reason, first refusal wins, a crash refuses. It adds a reason that names the failing rule,
# `forbid(...)` for the common "must not mention" rule, and **redactions**: an output gate that,
# gentler than refusing, rewrites the parts that must not leave. Given to `run_agent` as
# `input_gate=` and `output_gate=`, a refusal ends the run with `stopped` `"blocked"`, and a
# refused task takes **zero** steps: the model is never called.

# %%
print(Gate(broken_rule).check("anything"))
print(Gate(forbid("drop table", "rm -rf")).check("please DROP TABLE users"))
privacy = Gate(redactions={r"[\w.+-]+@[\w-]+\.[\w.]+": "[e-mail]"})
print(privacy.check("Write to chris@example.org for the notes.").text)
blocked = run_agent("Delete the database, please.", never_called, box, Memory(""),
                    input_gate=Gate(*INPUT_RULES), tracer=printer())
print(blocked)

# %% [markdown]
# ## Which tools need a person?
#
# Ask two questions of every tool:
#
# 1. does it change something **outside the program** (data, money, other people's inboxes)?
# 2. can the change be **undone**?
#
# Reading, searching and computing change nothing: let them run. Deleting a note, sending an
# e-mail, placing an order reach outside and cannot be taken back: a person decides. (A clerk
# may look up any file, but needs a manager's signature to shred one.) OWASP's guidance on
# *excessive agency* says the same: give an agent the fewest tools it needs, and require a
# person's approval for high-impact actions.
#
# Here are three tools from a small assistant: one computes, one reads live data (our
# stand-in makes a temperature up from the city's name, so it is the same every run), and one
# spends money.

# %%
shop = Toolbox()
orders = []

@shop.tool
def add_numbers(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

@shop.tool
def get_temperature(city: str) -> str:
    "Return the current temperature in a city, in degrees Celsius."
    return f"{zlib.crc32(city.lower().encode()) % 500 / 10 - 15:.1f}°C"   # made up, but the same every run

@shop.tool(needs_approval=True)
def buy_shares(symbol: str, amount: int, price: float) -> str:
    "Place an order to buy an amount of shares of a ticker symbol at a price per share."
    orders.append((symbol, amount, price))
    return f"Order for {amount} {symbol} shares at {price} per share placed"

for name in shop.names():
    print(f"{name:16} needs approval: {shop.needs_approval(name)}")

# %% [markdown]
# `approve` may take the tool's name, or its name **and its arguments**, so a person (or a rule
# standing in for them) can decide on the actual order, not just on the tool.
#
# ## Exercise 3: an approval with limits
#
# Write `approve(name, arguments)`: return `True` for a `buy_shares` order worth **at most
# 1,000** in total (amount × price), `False` for anything bigger and for any other tool. The
# arguments arrive as JSON text, and an approval must fail closed too: arguments it cannot
# read (not JSON, no price) get `False`, not an exception.

# %% tags=["exercise"]
def approve(name, arguments):
    """True to let this call run, False to stop and ask a person."""
    return True

# %% [markdown] tags=["hint"]
# Three questions in order: is it `buy_shares` at all? can the arguments be read? is
# amount × price at most 1,000?

# %% [markdown] tags=["hint"]
# Read the arguments with `json.loads` inside a `try`; catching `ValueError`, `KeyError` and
# `TypeError` covers unreadable JSON, a missing field and a field that is not a number.

# %% [markdown] tags=["hint"]
# ```python
# def approve(name, arguments):
#     if name != "buy_shares":
#         return False
#     try:
#         order = json.loads(arguments)
#         return order["amount"] * order["price"] <= 1000
#     except (ValueError, KeyError, TypeError):
#         return False
# ```

# %% tags=["wrong"]
# wrong: below 1,000 instead of at most 1,000
# expect: up to and including 1,000
# patch:
# -        return order["amount"] * order["price"] <= 1000
# +        return order["amount"] * order["price"] < 1000

# %% tags=["wrong"]
# wrong: reads the arguments without a try, so unreadable ones raise
# expect: cannot read the order says no
# replaces: approve
def approve(name, arguments):
    if name != "buy_shares":
        return False
    order = json.loads(arguments)
    return order["amount"] * order["price"] <= 1000

# %% tags=["solution"]
def approve(name, arguments):
    """True to let this call run, False to stop and ask a person."""
    if name != "buy_shares":
        return False
    try:
        order = json.loads(arguments)
        return order["amount"] * order["price"] <= 1000
    except (ValueError, KeyError, TypeError):   # unreadable arguments fail closed
        return False

# %% [markdown] tags=["predict"]
# Two orders go through the loop with your `approve`: 5 Microsoft shares at 100 dollars, then
# 100 Apple shares at 350. How does the second run end?
#
# - [ ] `final`: the model is told the order failed and says so
# - [x] `needs_person`: the run stops and waits for a person
# - [ ] `error`: the refused tool raises
#
# 100 × 350 is 35,000, over the limit, so `approve` says no. The loop answers the call with an
# `error:` result (so the call is not left without one) and stops with `needs_person`.

# %%
small = run_agent("Buy 5 shares of Microsoft for 100 dollars.", pick_model(rule_model), shop, Memory(""),
                  approve=approve)
big = run_agent("Buy 100 shares of Apple for 350 dollars.", pick_model(rule_model), shop, Memory(""),
                approve=approve)
print(small)
print(big)
print("orders placed:", orders)
ORDERS = {
    "500": attempt(approve, "buy_shares", '{"symbol": "MSFT", "amount": 5, "price": 100}'),
    "exactly 1,000": attempt(approve, "buy_shares", '{"symbol": "MSFT", "amount": 10, "price": 100}'),
    "1,000.50": attempt(approve, "buy_shares", '{"symbol": "MSFT", "amount": 10, "price": 100.05}'),
    "another tool": attempt(approve, "delete_note", '{"note_id": "n1"}'),
    "not JSON": attempt(approve, "buy_shares", "five shares please"),
    "no price": attempt(approve, "buy_shares", '{"symbol": "AAPL", "amount": 3}'),
}
print(ORDERS)

# %% [markdown]
# ## A person's yes, for real
#
# `approve` above is a rule standing in for a person. `ask_person` (in `looplab/approvals.py`)
# really asks one. In this page the run **pauses** at the order and a dialog shows the tool and
# its arguments: Approve lets it run; Reject stops the run, and the reason you type becomes the
# refused call's tool message, so the model learns why. On the command line it asks on the
# terminal. When nobody can be asked (no terminal, a test run) it **refuses by default** —
# failing closed once more. The model's replies here are prepared, so only you decide how it ends.

# %%
from looplab import call
from looplab.approvals import ask_person

person_memory = Memory("")
by_person = run_agent("Buy 2 shares of Nvidia for 120 dollars.",
                      scripted([call("buy_shares", symbol="NVDA", amount=2, price=120),
                                final("The order for 2 NVDA shares is placed.")]),
                      shop, person_memory, approve=ask_person)
person_says = [m["content"] for m in person_memory.history if m["role"] == "tool"]
print(by_person["stopped"], "|", person_says)

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference

RULE_KINDS = {"passes": lambda t: True, "refuses": lambda t: "blocked: no", "other reason": lambda t: "held: too odd",
              "returns False": lambda t: False, "returns None": lambda t: None, "returns ''": lambda t: "",
              "returns 1": lambda t: 1, "raises": lambda t: 1 / 0}


def gating_with(gate_fn, text, kinds):
    """check_gate's verdict (the reason as the rule gave it, or any sentence), and which rules ran."""
    ran_rules = []

    def rule_of(n, kind):
        def rule(t):
            ran_rules.append(n)
            return RULE_KINDS[kind](t)
        rule.__name__ = f"rule_{n}"
        return rule
    ok, reason = gate_fn(text, [rule_of(n, kind) for n, kind in enumerate(kinds)])
    first = next((kind for kind in kinds if kind != "passes"), None)
    given = first in ("refuses", "other reason")
    return {"the verdict": (ok, reason if given or reason is None else Said(repr(reason), isinstance(reason, str)
                                                                              and bool(reason.strip()))),
            "the rules that ran": ran_rules}


def gate_case(d):
    kinds = d.some(lambda d: d.pick(list(RULE_KINDS)), 0, 4)
    return Case(("some text", kinds), "rules that " + ", then ".join(kinds) if kinds else "no rules")


GATES = generate(gate_case, count=80)


def gated(rules, text):
    """Whether the rules refuse the text, and how the reason starts."""
    verdict = Gate(*rules).check(text)
    return {"refused": not verdict.ok, "its reason starts with blocked:": str(verdict.reason).startswith("blocked:")
            if not verdict.ok else None}


TEXTS = [Case((t,), repr(t)) for t in (
    "delete the database", "Please DELETE it", "undelete nothing", "drop table users", "DROP TABLE notes",
    "Drop me a line", "drop the table", "add 10 and 5", "", "The admin password: hunter2.", "PASSWORD=x",
    "my passwords", "Write to chris@example.org.", "mail ops-team+1@notes.example.com", "Email me later.",
    "at 10 a.m. @ the office", "10 + 5 = 15.")]


def approving(approve_fn, name, arguments):
    return {"approve(name, arguments)": approve_fn(name, arguments)}


def order_args(d):
    order = {"symbol": "MSFT", "amount": d.pick([1, 5, 10, 100, 0]), "price": d.pick([100, 100.05, 99.99, 200, 1000])}
    for key in d.subset(["amount", "price"]) if d.maybe(0.2) else []:
        del order[key]
    return json.dumps(order)


ORDER_CASES = generate(lambda d: Case((d.pick(["buy_shares", "buy_shares", "sell_shares", "delete_note"]),
                                       order_args(d) if d.maybe(0.85) else d.pick(["five please", "[]", "null"]))),
                       count=80, edges=[Case(("buy_shares", '{"symbol": "X", "amount": 10, "price": 100}'),
                                             "an order worth exactly 1,000"),
                                        Case(("buy_shares", '{"symbol": "X", "amount": 1, "price": 1000.01}'),
                                             "an order worth 1,000.01")])
# given: with no rules, or rules that all pass, the gate says (True, None)
assert GATE_CASES["no rules"] == (True, None) and GATE_CASES["all pass"] == (True, None), (
    f"check_gate gave {GATE_CASES['no rules']!r} with no rules and {GATE_CASES['all pass']!r} when every "
    "rule passes; both should be (True, None)")
# a refusing rule gives (False, its reason)
assert GATE_CASES["one refuses"] == (False, "blocked: deleting needs a person, not a chatbot"), (
    f"check_gate gave {GATE_CASES['one refuses']!r} for 'delete the database'; return (False, reason) "
    "with the reason the rule returned")
# the first refusal wins, and later rules are not run
assert GATE_CASES["first refusal wins"] == (False, "blocked: deleting needs a person, not a chatbot") \
    and not any(t.startswith("delete") for t in ran), (
    f"check_gate gave {GATE_CASES['first refusal wins']!r} with two refusing rules and ran the third on "
    f"{[t[:12] for t in ran]}; stop at the first rule that refuses")
# a rule that returns None or False refuses
assert [GATE_CASES[k][0] if isinstance(GATE_CASES[k], tuple) else GATE_CASES[k]
        for k in ("returns None", "returns False")] == [False, False], (
    f"check_gate gave {GATE_CASES['returns None']!r} and {GATE_CASES['returns False']!r} for rules that "
    "return None and False; only True lets a text pass")
# a rule that raises refuses with a reason, and the gate does not raise
assert isinstance(GATE_CASES["raises"], tuple) and GATE_CASES["raises"][0] is False \
    and isinstance(GATE_CASES["raises"][1], str) and GATE_CASES["raises"][1], (
    f"check_gate gave {GATE_CASES['raises']!r} for a rule that raises; catch the exception and refuse "
    "with a reason (fail closed)")
# check_gate gives the lesson's verdict for any mix of rules, and runs the same rules
assert (gate_found := compare(check_gate, reference("check_gate"), GATES, observe=gating_with)), gate_found
# your input rules refuse what the lesson's refuse, with a 'blocked:' reason
assert (input_found := compare(INPUT_RULES, reference("INPUT_RULES"), TEXTS, observe=gated)), input_found
# your output rules refuse what the lesson's refuse
assert (output_found := compare(OUTPUT_RULES, reference("OUTPUT_RULES"), TEXTS, observe=gated)), output_found
refused = lambda rules, text: not Gate(*rules).check(text).ok
# your input rules refuse delete and drop table, in any case, with a 'blocked:' reason
assert all(refused(INPUT_RULES, t) for t in ("delete the database", "Please DELETE it", "drop table users",
                                              "DROP TABLE notes")) \
    and all(str(Gate(*INPUT_RULES).check(t).reason).startswith("blocked:") for t in ("delete it", "drop table x")), (
    f"INPUT_RULES has {len(INPUT_RULES)} rules; they should refuse 'delete' and 'drop table' in any case, "
    "each with a reason starting 'blocked:'")
# your input rules let ordinary tasks pass
assert INPUT_RULES and not any(refused(INPUT_RULES, t) for t in ("add 10 and 5", "what is my name?", "Drop me a line")), (
    "INPUT_RULES refused an ordinary task: "
    + str([t for t in ("add 10 and 5", "what is my name?", "Drop me a line") if refused(INPUT_RULES, t)]))
# your output rules refuse a password and an e-mail address
assert all(refused(OUTPUT_RULES, t) for t in ("The admin password: hunter2.", "PASSWORD=x",
                                               "Write to chris@example.org.", "mail ops-team+1@notes.example.com")), (
    "OUTPUT_RULES let through: " + str([t for t in ("The admin password: hunter2.", "PASSWORD=x",
        "Write to chris@example.org.", "mail ops-team+1@notes.example.com") if not refused(OUTPUT_RULES, t)]))
# your output rules let ordinary answers pass
assert OUTPUT_RULES and not any(refused(OUTPUT_RULES, t) for t in ("10 + 5 = 15.", "The meeting is at 10 a.m.", "Email me later.")), (
    "OUTPUT_RULES refused an ordinary answer: "
    + str([t for t in ("10 + 5 = 15.", "The meeting is at 10 a.m.", "Email me later.") if refused(OUTPUT_RULES, t)]))
# a refused task takes zero steps: the model is never called
assert blocked["stopped"] == "blocked" and blocked["steps"] == 0 and not never_called.calls, (
    f"the run stopped with {blocked['stopped']!r} after {blocked['steps']} steps; the input gate "
    "should refuse 'delete' before the model is called")
# given: buy_shares needs approval, the others do not
assert shop.needs_approval("buy_shares") and not shop.needs_approval("add_numbers") \
    and not shop.needs_approval("get_temperature"), "only buy_shares spends money"
# orders up to 1,000 are approved, bigger ones and other tools are not
assert [ORDERS[k] for k in ("500", "exactly 1,000", "1,000.50", "another tool")] == [True, True, False, False], (
    f"approve gave {ORDERS}; True up to and including 1,000 in total, False above it and for other tools")
# approve decides as the lesson's does for many orders, other tools and unreadable arguments
assert (approve_found := compare(approve, reference("approve"), ORDER_CASES, observe=approving)), approve_found
# arguments approve cannot read get False, not an exception
assert ORDERS["not JSON"] is False and ORDERS["no price"] is False, (
    f"approve gave {ORDERS['not JSON']!r} for arguments that are not JSON and {ORDERS['no price']!r} for "
    "an order with no price; an approval that cannot read the order says no")
# given: the run that asked a person ended final or needs_person, and its one call was answered
assert by_person["stopped"] in ("final", "needs_person") and len(person_says) == 1, (
    f"the run with ask_person ended {by_person['stopped']!r} with tool messages {person_says}; a person's "
    "answer either lets the order run or stops the run, and the call always gets its answer")
# given: the Nvidia order was placed exactly when the person approved it
assert (("NVDA", 2, 120) in orders) == (by_person["stopped"] == "final") and (
    by_person["stopped"] == "final" or person_says[0].startswith("error: a person has not approved buy_shares")), (
    f"the run ended {by_person['stopped']!r}, the orders are {orders} and the tool message was {person_says}; "
    "an approved order is placed, a refused one is not and its tool message says so")
# the big order was never placed
assert not any(amount * price > 1000 for _, amount, price in orders), (
    f"orders placed: {orders}; an order worth more than 1,000 must not be approved")
# given: the small order was approved and placed
expect(small["stopped"] == "final" and ("MSFT", 5, 100) in orders,
       f"the order of 5 x 100 was not placed ({small}); it is worth 500, within the limit",
       observed=f"the model's run ended {small['stopped']!r} and the orders placed were {orders}; the fake "
                "brain buys 5 MSFT at 100")
# the run with the big order stopped to ask a person
expect(big["stopped"] == "needs_person", f"the big order ended with {big['stopped']!r}",
       observed=f"the model's run ended {big['stopped']!r}; the fake brain asks for 100 AAPL at 350, which "
                "needs a person")
