# ---
# jupyter:
#   looplab:
#     deepens: "01"
#     adds: answers held to a JSON schema, checked and retried once
# ---

# %% [markdown]
# # 19 · Structured outputs
#
# Some answers are for a program, not a person. Lesson 9's fact extractor asks the model for
# `{"facts": [...]}` and a program stores what comes back; a dashboard wants a branch name and a
# number, not a paragraph. "Answer in JSON" in the prompt works most of the time. The rest of the
# time the program meets `Sure! Here are the facts: ...`, a code fence, `"facts": "Chris"`
# instead of a list, or JSON cut off halfway because the reply hit a token limit.
#
# The chat-completions API lets the request itself say what shape the answer must have, in a
# field called `response_format`. There are three levels of promise:
#
# | you send | what you can count on |
# | --- | --- |
# | nothing, only an instruction in the prompt | nothing: it is text that usually looks like JSON |
# | `{"type": "json_object"}` ("JSON mode") | valid JSON, of any shape; the API refuses it unless a message says "JSON" |
# | `{"type": "json_schema", "json_schema": {"name", "schema", "strict": true}}` | JSON that fits your schema, on models and servers that support it |
#
# A prompt-only extractor usually asks for the middle row. This lesson builds the last row and, because not
# every OpenAI-compatible server keeps that promise, a check of every reply with one second
# chance for the model.

# %%
import json

from looplab import Memory, Toolbox, ToolError, run_agent
from looplab import expect
from looplab.models import ModelError, call, final, pick_model, scripted
from looplab.models.chat import chat_payload
from looplab.schema import allows, check_value, strict_problems

PROFILE = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "role": {"type": "string", "enum": ["admin", "member"]},
        "address": {"type": "object",
                    "properties": {"city": {"type": "string"}, "postcode": {"type": "string"}},
                    "required": ["city"]},
        "projects": {"type": "array", "items": {
            "type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
            "required": ["title"]}},
    },
    "required": ["name", "age"],
}

# JSON mode: any JSON object, and the prompt must say "JSON".
print(json.dumps(chat_payload("gpt-4o-mini", [{"role": "user", "content": "Reply in JSON: who am I?"}],
                              response_format={"type": "json_object"}), indent=2))

# %% [markdown]
# ## Strict mode's rules
#
# A schema for `strict: true` must be **closed** and **complete**: every object says
# `"additionalProperties": false`, and lists every one of its properties in `required`. An
# optional property is written as required but allowed to be `null`: `{"type": ["string",
# "null"]}`. That way the model's output can be constrained token by token to exactly one shape.
# The API answers a schema that breaks these rules with a 400 before any model sees it; the
# scripted model imitates that refusal:

# %%
loose = {"type": "json_schema", "json_schema": {"name": "profile", "schema": PROFILE, "strict": True}}
try:
    scripted([final("{}")])([{"role": "user", "content": "Who?"}], [], response_format=loose)
except ModelError as exc:
    print(exc)
print(strict_problems(PROFILE))

# %% [markdown]
# ## Exercise 1: make a schema strict
#
# Write `make_strict(schema)`, returning a **new** schema (leave the one you are given alone) in
# which, at every level:
#
# 1. each object has `"additionalProperties": False` and `required` listing all its properties;
# 2. a property that was not required accepts `null` as well: add `"null"` to its `type` (and
#    `None` to its `enum`, if it has one);
# 3. the items of an array, and the properties of an object, are made strict the same way.
#
# `response_format_for(schema, name)` then wraps it in the request field; it is written for you.

# %% tags=["exercise"]
def make_strict(schema):
    """A copy of `schema` that strict mode accepts: closed, complete, optional properties nullable."""
    out = dict(schema)
    if out.get("type") == "object":
        out["additionalProperties"] = False
    return out


def response_format_for(schema, name):
    """The `response_format` of a request for JSON that fits `schema`, in strict mode."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": make_strict(schema), "strict": True}}

# %% [markdown] tags=["hint"]
# It is recursive: `make_strict` calls itself on each property's schema and on an array's
# `items`. Remember which properties were required *before* you overwrite `required`.

# %% [markdown] tags=["hint"]
# For an object: build a new `properties` dict. Make each property's schema strict first (the
# recursive call); if the key was not in the old `required`, copy it with `"null"` added to its
# type (and `None` added to its enum, when there is one). Then every key is required, and
# `additionalProperties` is `False`.

# %% [markdown] tags=["hint"]
# ```python
# def make_strict(schema):
#     out = dict(schema)
#     if out.get("type") == "object":
#         required = out.get("required", [])
#         properties = {}
#         for key, sub in out.get("properties", {}).items():
#             sub = make_strict(sub)
#             if key not in required:
#                 sub = {**sub, "type": [sub["type"], "null"]}
#                 if "enum" in sub:
#                     sub["enum"] = [*sub["enum"], None]
#             properties[key] = sub
#         out["properties"] = properties
#         out["required"] = list(properties)
#         out["additionalProperties"] = False
#     if out.get("type") == "array" and isinstance(out.get("items"), dict):
#         out["items"] = make_strict(out["items"])
#     return out
# ```

# %% tags=["wrong"]
# wrong: only the top object is made strict; the objects inside properties and items are left open
# expect: inside an array's items
# patch:
# -            sub = make_strict(sub)
# @@
# -    if out.get("type") == "array" and isinstance(out.get("items"), dict):
# -        out["items"] = make_strict(out["items"])

# %% tags=["wrong"]
# wrong: every property is made required, but the optional ones do not accept null
# expect: must accept null
# patch:
# -            if key not in required:
# -                sub = {**sub, "type": [sub["type"], "null"]}
# -                if "enum" in sub:
# -                    sub["enum"] = [*sub["enum"], None]

# %% tags=["wrong"]
# wrong: an optional enum gets null in its type but not among its values
# expect: needs None
# patch:
# -                if "enum" in sub:
# -                    sub["enum"] = [*sub["enum"], None]

# %% tags=["wrong"]
# wrong: the schema it is given is changed in place
# expect: start from a copy
# patch:
# -    out = dict(schema)
# +    out = schema

# %% tags=["solution"]
def make_strict(schema):
    """A copy of `schema` that strict mode accepts: closed, complete, optional properties nullable."""
    out = dict(schema)
    if out.get("type") == "object":
        required = out.get("required", [])
        properties = {}
        for key, sub in out.get("properties", {}).items():
            sub = make_strict(sub)
            if key not in required:
                sub = {**sub, "type": [sub["type"], "null"]}
                if "enum" in sub:
                    sub["enum"] = [*sub["enum"], None]
            properties[key] = sub
        out["properties"] = properties
        out["required"] = list(properties)
        out["additionalProperties"] = False
    if out.get("type") == "array" and isinstance(out.get("items"), dict):
        out["items"] = make_strict(out["items"])
    return out


def response_format_for(schema, name):
    """The `response_format` of a request for JSON that fits `schema`, in strict mode."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": make_strict(schema), "strict": True}}

# %%
original = json.dumps(PROFILE, sort_keys=True)
strict_profile = make_strict(PROFILE)
print(json.dumps(strict_profile, indent=2))
print("strict mode's complaints:", strict_problems(strict_profile) or "none")


def accepted(schema, name="profile"):
    """Does the scripted model (like the API) accept a request with this schema's format?"""
    try:
        scripted([final("{}")])([{"role": "user", "content": "Who?"}], [], response_format=response_format_for(schema, name))
        return "accepted"
    except ModelError as exc:
        return str(exc)


print(accepted(PROFILE))

# %% [markdown]
# ## Check every reply anyway
#
# Strict mode is a promise of the model *server*. Some OpenAI-compatible servers ignore
# `response_format`, some support JSON mode but not schemas, and a reply cut off by a token limit
# is not JSON whatever was asked. So the program checks what it gets: parse it, check it against
# the schema, and if it does not fit, tell the model what was wrong and ask **once** more. A
# second failure is an error for the caller, not a third try: a model that gets the shape wrong
# twice in a row rarely gets it right on the tenth, and every try costs a call.
#
# `check_value(schema, value, "the reply")` from `looplab.schema` (the check the Toolbox uses on
# tool arguments, lesson 2) returns `None` when the value fits, else an `error:` text naming the
# first problem:

# %%
strict_person = make_strict({"type": "object", "properties": {"name": {"type": "string"},
                                                              "age": {"type": "integer"}},
                             "required": ["name", "age"]})
print(check_value(strict_person, {"name": "Ana", "age": 34}, "the reply"))
print(check_value(strict_person, {"name": "Ana", "age": "34"}, "the reply"))
print(check_value(strict_person, {"name": "Ana"}, "the reply"))

# %% [markdown]
# ## Exercise 2: ask, check, ask once more
#
# Write `ask_json(model_fn, messages, schema, name)`:
#
# 1. call `model_fn(messages, [], response_format=response_format_for(schema, name))`;
# 2. read the reply's `content` with `json.loads`; if that fails, the problem is `"the reply was
#    not JSON"`; otherwise check it with `check_value` against the **strict** schema (the one in
#    the format you sent);
# 3. if it fits, return the value;
# 4. if not, add the model's reply and a user message saying what was wrong (`Your reply could
#    not be used (<problem>) ...`) to a copy of the messages, and ask again the same way;
# 5. after a second failure, raise `ModelError` with a sentence that names the problem.
#
# The starter asks once and trusts the answer.

# %% tags=["exercise"]
def ask_json(model_fn, messages, schema, name):
    """Ask for JSON that fits `schema`: checked, one corrective retry, then ModelError."""
    fmt = response_format_for(schema, name)
    reply = model_fn(messages, [], response_format=fmt)
    return json.loads(reply["content"])

# %% [markdown] tags=["hint"]
# Two tries at most, and the second one must know what went wrong with the first: what does the
# model need to read before it tries again, and when is it time to give up?

# %% [markdown] tags=["hint"]
# A loop of two tries around the call, with a conversation that starts as a copy of `messages`
# and grows by two messages after a failed try (the bad reply, and a user message saying what was
# wrong); only after the loop do you raise. Inside the loop: text that `json.loads` refuses is
# one problem; otherwise `check_value` against the format's schema names the problem, or none,
# and then the value is returned. After the loop: a `ModelError` that carries the last problem.

# %% [markdown] tags=["hint"]
# ```python
# def ask_json(model_fn, messages, schema, name):
#     fmt = response_format_for(schema, name)
#     convo, problem = list(messages), None
#     for attempt in range(2):
#         reply = model_fn(convo, [], response_format=fmt)
#         text = reply.get("content") or ""
#         try:
#             value = json.loads(text)
#         except json.JSONDecodeError:
#             problem = "the reply was not JSON"
#         else:
#             problem = check_value(fmt["json_schema"]["schema"], value, "the reply")
#             if problem is None:
#                 return value
#         convo = convo + [{"role": "assistant", "content": text},
#                          {"role": "user", "content": f"Your reply could not be used ({problem}). "
#                                                      "Answer again with only JSON that fits the schema."}]
#     raise ModelError(f"no usable {name} after 2 tries ({problem})")
# ```

# %% tags=["wrong"]
# wrong: the reply is parsed but never checked against the schema
# expect: check the parsed value
# patch:
# -            problem = check_value(fmt["json_schema"]["schema"], value, "the reply")
# -            if problem is None:
# -                return value
# +            return value

# %% tags=["wrong"]
# wrong: the second try is sent the same messages, so the model never hears what was wrong
# expect: saying what was wrong
# patch:
# -        convo = convo + [{"role": "assistant", "content": text},
# -                         {"role": "user", "content": f"Your reply could not be used ({problem}). "
# -                                                     "Answer again with only JSON that fits the schema."}]

# %% tags=["wrong"]
# wrong: there is no second chance: the first misfit raises
# expect: ask once more
# patch:
# -    for attempt in range(2):
# +    for attempt in range(1):

# %% tags=["wrong"]
# wrong: after two misfits it returns None instead of raising
# expect: raise ModelError
# patch:
# -    raise ModelError(f"no usable {name} after 2 tries ({problem})")
# +    return None

# %% tags=["solution"]
def ask_json(model_fn, messages, schema, name):
    """Ask for JSON that fits `schema`: checked, one corrective retry, then ModelError."""
    fmt = response_format_for(schema, name)
    convo, problem = list(messages), None
    for attempt in range(2):
        reply = model_fn(convo, [], response_format=fmt)
        text = reply.get("content") or ""
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            problem = "the reply was not JSON"
        else:
            problem = check_value(fmt["json_schema"]["schema"], value, "the reply")
            if problem is None:
                return value
        convo = convo + [{"role": "assistant", "content": text},
                         {"role": "user", "content": f"Your reply could not be used ({problem}). "
                                                     "Answer again with only JSON that fits the schema."}]
    raise ModelError(f"no usable {name} after 2 tries ({problem})")

# %% [markdown]
# Your function is tested with prepared replies, in every mode: these runs check your code, not
# a model. A reply that fits; a reply that is prose, then a good one; a list where a string
# belongs, twice.

# %%
FACTS = {"type": "object", "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
         "required": ["facts"]}
TALK = [{"role": "system", "content": "Extract durable facts about the user."},
        {"role": "user", "content": "I'm Chris, I teach at a university in Singapore."}]


def attempt(model, schema=FACTS, name="facts"):
    """Run the learner's ask_json; what it returned or raised, and every call the model saw."""
    try:
        return ("returned", ask_json(model, TALK, schema, name)), model.calls
    except ModelError as exc:
        return ("raised ModelError", str(exc)), model.calls
    except Exception as exc:
        return (f"raised {type(exc).__name__}", str(exc)), model.calls


good, good_calls = attempt(scripted([final('{"facts": ["The user is called Chris."]}')]))
fixed, fixed_calls = attempt(scripted([final("Sure! Chris teaches in Singapore."),
                                       final('{"facts": ["Chris teaches in Singapore."]}')]))

# %% [markdown] tags=["predict"]
# The next model answers `{"facts": "Chris"}` twice: a string where the schema wants a list. What
# does your `ask_json` do?
#
# - [ ] returns `{"facts": "Chris"}`: it is valid JSON
# - [ ] returns `{"facts": ["Chris"]}`: the check repairs it
# - [x] raises `ModelError` after two calls, naming the problem
# - [ ] keeps asking until the model gets it right
#
# The check finds the problem, the second call is the one second chance, and then the caller
# hears about it. Nothing is repaired behind the model's back.

# %%
stubborn, stubborn_calls = attempt(scripted([final('{"facts": "Chris"}'), final('{"facts": "Chris"}')]))
for name, outcome, seen in [("good", good, good_calls), ("fixed", fixed, fixed_calls),
                            ("stubborn", stubborn, stubborn_calls)]:
    print(f"{name:9} {len(seen)} call(s) -> {outcome[0]}: {outcome[1]}")
if len(fixed_calls) > 1:
    print("what the model read before its second try:", fixed_calls[1]["messages"][-1]["content"])

# %% [markdown]
# ## Your function, with the lesson's model
#
# With the scripted model this is the first case again. Switch to live and the request goes to
# your endpoint with your strict format; whatever comes back is checked by your code.

# %%
try:
    yours = ask_json(pick_model([final('{"facts": ["The user is called Chris.", '
                                       '"The user teaches at a university in Singapore."]}')]),
                     TALK, FACTS, "facts")
except ModelError as exc:
    yours = f"ModelError: {exc}"
print(yours)

# %% [markdown]
# ## The hardened version: `structured`
#
# `looplab.structured.structured(model_fn, schema, name=...)` wraps a model function into one
# whose text replies are checked JSON; the value comes back as the reply's `parsed`. Read it in
# `looplab/structured.py`. What it adds to your `ask_json`:
#
# - **one model contract**: it *is* a model function `model_fn(messages, tools)`, so it also
#   drives `run_agent` (a reply asking for tools passes unchecked; the final answer is checked);
# - **asking per call**: the format travels as an optional third argument, `response_format=`,
#   which the chat, Responses and SDK adapters and the scripted model take. A function that does
#   not take it (your own, the rule-based brain) gets the schema in its system message instead;
# - **JSON mode** when there is no schema, adding "Answer with a JSON object." when no message
#   says JSON (the API's rule);
# - **refusals**: a model that refuses ("I can't help with that") raises at once, no retry;
# - a code fence around the JSON is tolerated, and the usage of both tries is added up.
#
# `extract_facts` (lesson 9) now asks this way. The Responses API takes the same format flattened
# under `text.format`; the adapter translates.

# %%
from looplab import extract_facts
from looplab.structured import structured

extractor = pick_model([final('{"facts": "The user is Chris."}'),
                        final('{"facts": ["The user is called Chris.", "The user teaches in Singapore."]}')])
facts = extract_facts(extractor, TALK[1:])
print(facts)
if hasattr(extractor, "calls"):
    print("asked for:", extractor.calls[0]["response_format"]["json_schema"]["name"],
          "| calls:", len(extractor.calls))

# %% [markdown]
# A structured final answer from an agent: the model may use tools first, and its last word is
# checked JSON.

# %%
NOTES = {"n1": "Eastside branch. March visits: 1240. April visits: 1310.",
         "n2": "Westside branch. March visits: 980. April visits: 1105."}
box = Toolbox()


@box.tool
def read_note(note_id: str) -> str:
    "Return the text of one research note by its id: n1 or n2."
    if note_id not in NOTES:
        raise ToolError(f"no note {note_id!r}; ids are n1, n2")
    return NOTES[note_id]


WINNER = {"type": "object", "properties": {"branch": {"type": "string"}, "april_visits": {"type": "integer"}},
          "required": ["branch", "april_visits"]}
answerer = structured(pick_model([call("read_note", note_id="n1"), call("read_note", note_id="n2"),
                                  final('{"branch": "Eastside", "april_visits": 1310}')]), WINNER, name="winner")
run = run_agent("Which branch had more April visits? Read notes n1 and n2.", answerer, box,
                Memory("You answer from the research notes."), max_steps=4)
print(run)
winner = json.loads(run["answer"]) if run["stopped"] == "final" else None

# %% [markdown]
# ## What the check does not cover
#
# `check_value` knows the parts of JSON Schema that tool arguments and answers like these use:
# `type` (one or a list), `enum`, `required`, `properties` with extra keys refused (unless the
# schema says `"additionalProperties": true`), array `items`, nested objects. It does **not** check
# `anyOf`/`oneOf`, `$ref`/`$defs`, `minimum`/`maximum`, `minLength`/`maxLength`, `pattern`,
# `format` or `minItems`. A schema that leans on those needs a full validator (the `jsonschema`
# package), or a check of your own after this one. And no schema can say whether the facts are
# *true*: that is lesson 17's job.

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference


def schema_of(d, depth=0):
    kind = d.pick(["string", "integer", "object", "array"] if depth < 2 else ["string", "integer", "boolean"])
    if kind == "object":
        names = d.subset(["a", "b", "c"])
        out = {"type": "object", "properties": {n: schema_of(d, depth + 1) for n in names}}
        if d.maybe(0.8):
            out["required"] = d.subset(names)
        return out
    if kind == "array":
        return {"type": "array", "items": schema_of(d, depth + 1)}
    out = {"type": kind}
    if kind == "string" and d.maybe(0.3):
        out["enum"] = ["x", "y"]
    return out


SCHEMAS = generate(lambda d: Case((schema_of(d),)), count=120, edges=[
    Case((PROFILE,), "the lesson's PROFILE"), Case(({"type": "array"},), "an array with no items schema")])


def asking(ask_fn, replies, messages, schema):
    """ask_json with a model that gives these replies: what it returns or raises, and what the model was sent."""
    sent_here = []

    def model_fn(msgs, tools, **options):
        sent_here.append(([(m["role"], m["content"]) for m in msgs], options.get("response_format")))
        return {"role": "assistant", "content": replies[min(len(sent_here), len(replies)) - 1]}
    given = [dict(m) for m in messages]
    problems = []
    for text in replies:
        try:
            problems.append(check_value(make_strict(schema), json.loads(text), "the reply"))
        except (TypeError, ValueError):
            problems.append("the reply was not JSON")
    try:
        out = ask_fn(model_fn, messages, schema, "facts")
    except Exception as exc:
        out = Said(f"raised {type(exc).__name__}: {exc}", (type(exc).__name__, any(
            p and p in str(exc) for p in problems[:2])))
    return {"what it gave": out, "what the model was sent": [
        ([(role, Said(repr(text)[:60], any(p and p in str(text) for p in problems[:2])) if n >= len(messages) else text)
          for n, (role, text) in enumerate(msgs)], fmt) for msgs, fmt in sent_here],
        "the messages it was given": "unchanged" if messages == given else "changed"}


REPLY_TEXTS = ['{"facts": ["Chris teaches."]}', '{"facts": "Chris"}', "not json", "", '{"facts": []}', "[1]",
               '{"facts": ["a"], "more": 1}', None]
ASKS = generate(lambda d: Case((d.some(lambda d: d.pick(REPLY_TEXTS), 1, 3), [{"role": "user", "content": "Facts?"}],
                                FACTS)), count=80)

# make_strict closes every object and requires every property, at every level, leaving its input unchanged
assert json.dumps(PROFILE, sort_keys=True) == original and strict_problems(strict_profile) == [], (
    "make_strict changed PROFILE itself; start from a copy, out = dict(schema)"
    if json.dumps(PROFILE, sort_keys=True) != original else
    f"strict mode would refuse the schema: {strict_problems(strict_profile)[:2]}; look at the objects inside "
    "properties and inside an array's items")
# an optional property accepts null, a required one does not
assert (allows(strict_profile["properties"]["role"], None) and allows(strict_profile["properties"]["address"], None)
        and not allows(strict_profile["properties"]["name"], None)), (
    "role and address were optional, so they must accept null (add \"null\" to their type); name was required and must not")
# an optional enum lists null among its values
assert None in strict_profile["properties"]["role"].get("enum", []), "role has an enum: an optional one needs None in it too"
# make_strict makes the lesson's strict schema from many schemas, and leaves each alone
assert (strict_found := compare(make_strict, reference("make_strict"), SCHEMAS)), strict_found
# the scripted model, like the API, accepts your strict format
assert accepted(PROFILE) == "accepted", f"the request was refused: {accepted(PROFILE)}"
# a reply that fits is returned after one call; one that is not JSON gets a second chance, which is used
assert good == ("returned", {"facts": ["The user is called Chris."]}) and len(good_calls) == 1 \
    and fixed == ("returned", {"facts": ["Chris teaches in Singapore."]}) and len(fixed_calls) == 2, (
    f"a fitting reply gave {good} after {len(good_calls)} call(s) (expected it back after 1); a reply that is not "
    f"JSON, then a good one, gave {fixed} after {len(fixed_calls)} calls: after a reply that is not JSON, ask once more")
# every call sends the strict format; the second shows the model its reply and what was wrong with it
assert good_calls and all(c["response_format"] == response_format_for(FACTS, "facts") for c in good_calls + fixed_calls) \
    and len(fixed_calls) == 2 and [m["role"] for m in fixed_calls[1]["messages"][-2:]] == ["assistant", "user"] and \
    "not JSON" in fixed_calls[1]["messages"][-1]["content"], (
    "the model was not sent response_format=response_format_for(schema, name)"
    if not (good_calls and all(c["response_format"] == response_format_for(FACTS, "facts") for c in good_calls + fixed_calls))
    else "before the second try, add the model's reply and a user message saying what was wrong")
# two misfits end in ModelError after exactly two calls, naming the problem
assert stubborn[0] == "raised ModelError" and len(stubborn_calls) == 2 and "must be a list" in stubborn[1], (
    f"got {stubborn} after {len(stubborn_calls)} calls; check the parsed value with check_value, and raise "
    "ModelError after the second failure")
# ask_json asks, checks and asks again as the lesson's does, for many sequences of replies
assert (ask_found := compare(ask_json, reference("ask_json"), ASKS, observe=asking)), ask_found
# ask_json with the lesson's model returned facts that fit, or said clearly why not (as it did for the misfits)
assert ((isinstance(yours, dict) and check_value(make_strict(FACTS), yours, "x") is None)
        or str(yours).startswith("ModelError")) and stubborn[0] == "raised ModelError", (
    f"with the lesson's model ask_json gave {yours!r}; for two misfits it gave {stubborn}: it must return only "
    "values that fit, and raise ModelError otherwise")
# with the prepared replies, ask_json returns the two facts about Chris
expect(yours == {"facts": ["The user is called Chris.", "The user teaches at a university in Singapore."]}
       and len(fixed_calls) == 2,
       f"ask_json gave {yours}", observed=f"the model's facts were {yours}; the scripted model's are the two about Chris")
# given: extract_facts gives a list of texts, whatever the model did
assert isinstance(facts, list) and all(isinstance(f, str) and f for f in facts), f"extract_facts gave {facts!r}"
# given: with the prepared replies, extract_facts needs two tries and keeps both facts
expect(facts == ["The user is called Chris.", "The user teaches in Singapore."] and len(extractor.calls) == 2,
       f"extract_facts gave {facts}", observed=f"the model's facts were {facts}; a scripted model needs two tries")
# given: the agent's final answer, when it gave one, fits the schema
assert run["stopped"] in ("final", "error", "step_limit") and (
    winner is None or check_value(make_strict(WINNER), winner, "the answer") is None), f"{run}"
# given: with the prepared replies, the agent reads both notes and answers Eastside, 1310
expect(winner == {"branch": "Eastside", "april_visits": 1310} and run["steps"] == 3, f"the run gave {run}",
       observed=f"the run ended {run['stopped']} after {run['steps']} steps with {run['answer']!r}; a scripted model reads both notes, then answers Eastside, 1310")
