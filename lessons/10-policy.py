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
import zlib
from looplab import Toolbox, Memory, run_agent, printer, Gate, forbid
from looplab.models import pick_model, model_mode, call, final
from looplab.models.rules import rule_model

live = model_mode() == "live"

# %% [markdown]
# ## Rules and gates
#
# A **rule** is a function of the text: it returns `True` when the text may pass, or a reason
# (a string) when it may not. A `Gate` runs its rules in order, and the first refusal wins. A
# rule that crashes refuses too: a guard must **fail closed**.

# %%
def no_delete(text):
    return "delete" not in text.lower() or "blocked: deleting needs a person, not a chatbot"

def short(text):
    return len(text) < 500 or "blocked: the task is too long"

def broken_rule(text):
    raise RuntimeError("the rule has a bug")

print(Gate(no_delete, short).check("add 10 and 5"))
print(Gate(no_delete, short).check("delete the database"))
print(Gate(broken_rule).check("anything"))
print(Gate(forbid("drop table", "rm -rf")).check("please DROP TABLE users"))

# %% [markdown]
# Give a gate to `run_agent` as `input_gate=` and a refused task ends the run with `stopped`
# `"blocked"` after **zero** steps: the model was never called.

# %%
box = Toolbox()

@box.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

print(run_agent("delete the database", pick_model(rule_model), box, Memory(""),
                input_gate=Gate(no_delete), tracer=printer()))

# %% [markdown]
# An output gate sees the final answer. It can refuse it outright, or, gentler, rewrite the
# parts that must not leave: an e-mail address, a password. `redactions` maps a regular
# expression to its replacement.

# %%
privacy = Gate(redactions={r"[\w.+-]+@[\w-]+\.[\w.]+": "[e-mail]"})
print(privacy.check("Write to chris@example.org for the notes.").text)

# %% [markdown]
# ## Exercise 1: two gates
#
# Write `input_gate`, which refuses any task mentioning "delete" or "drop table", and
# `output_gate`, which rewrites `password: <something>` (or `password=<something>`) as
# `password: [redacted]`.

# %% tags=["exercise"]
input_gate = Gate()
output_gate = Gate()

# %% tags=["solution"]
input_gate = Gate(forbid("delete", "drop table", reason="blocked: deleting data needs a person"))
output_gate = Gate(redactions={r"password\s*[:=]\s*\S+": "password: [redacted]"})

# %%
blocked = run_agent("Delete the database, please.", pick_model(rule_model), box, Memory(""),
                    input_gate=input_gate)
print(blocked)
leaky_model = pick_model([final("The admin password: hunter2, keep it safe.")])
cleaned = run_agent("What is the admin password?", leaky_model, box, Memory(""), output_gate=output_gate)
print(cleaned)

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
# ## Exercise 2: an approval with limits
#
# Write `approve(name, arguments)`: return `True` for a `buy_shares` order worth **at most
# 1,000** in total (amount × price), `False` for anything bigger. The arguments arrive as JSON
# text.

# %% tags=["exercise"]
import json

def approve(name, arguments):
    return True

# %% tags=["solution"]
import json

def approve(name, arguments):
    if name != "buy_shares":
        return False
    order = json.loads(arguments)
    return order["amount"] * order["price"] <= 1000

# %%
small = run_agent("Buy 5 shares of Microsoft for 100 dollars.", pick_model(rule_model), shop, Memory(""),
                  approve=approve)
big = run_agent("Buy 100 shares of Apple for 350 dollars.", pick_model(rule_model), shop, Memory(""),
                approve=approve)
print(small)
print(big)
print("orders placed:", orders)

# %% tags=["check"]
# the input gate blocks a task that mentions delete
assert blocked["stopped"] == "blocked" and blocked["steps"] == 0, (
    f"the run stopped with {blocked['stopped']!r} after {blocked['steps']} steps; the input gate "
    "should refuse 'delete' before the model is called")
# the input gate also blocks drop table
assert not input_gate.check("please DROP TABLE notes").ok, "the input gate let 'drop table' through"
# the input gate lets ordinary tasks pass
assert input_gate.check("add 10 and 5").ok, "the input gate refused 'add 10 and 5'"
# the output gate redacts the password
assert output_gate.check("password: hunter2").text == "password: [redacted]", (
    f"the output gate turned 'password: hunter2' into {output_gate.check('password: hunter2').text!r}")
# the answer that reached the user has no password in it
assert "hunter2" not in str(cleaned["answer"]), f"the answer was {cleaned['answer']!r}"
# buy_shares needs approval, the others do not
assert shop.needs_approval("buy_shares") and not shop.needs_approval("add_numbers") \
    and not shop.needs_approval("get_temperature"), "only buy_shares spends money"
# the small order was approved and placed
assert live or small["stopped"] == "final" and ("MSFT", 5, 100) in orders, (
    f"the order of 5 x 100 was not placed ({small}); it is worth 500, within the limit")
# the big order waits for a person
assert not any(amount * price > 1000 for _, amount, price in orders), (
    f"orders placed: {orders}; an order worth more than 1,000 must not be approved")
# the run with the big order stopped to ask a person
assert live or big["stopped"] == "needs_person", f"the big order ended with {big['stopped']!r}"
