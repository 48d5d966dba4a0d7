"""schema.py on its own: schemas from hints and docstrings, strict mode, and checking arguments against a schema.

How the Toolbox uses it (error texts a model gets back from `Toolbox.run`) is tested in test_tools.py.
"""

import copy
from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st

from looplab.schema import (
    check_arguments,
    example_arguments,
    json_type,
    nullable,
    parse_docstring,
    schema_from_function,
    strict_schema,
    type_schema,
)


def test_type_hints_become_schemas_and_say_whether_they_admit_none():
    assert type_schema(Literal[1, 2]) == ({"type": "integer", "enum": [1, 2]}, False)
    assert type_schema(Literal["a", 1]) == ({"enum": ["a", 1]}, False)
    assert type_schema(int | str) == ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, False)
    assert type_schema(list[int] | None) == ({"type": "array", "items": {"type": "integer"}}, True)
    assert type_schema(tuple[float, ...]) == ({"type": "array", "items": {"type": "number"}}, False)
    assert type_schema(set[bool]) == ({"type": "array", "items": {"type": "boolean"}}, False)
    assert type_schema(dict[str, int]) == ({"type": "object"}, False)
    assert type_schema(Any) == ({}, False) and type_schema(type(None)) == ({"type": "null"}, True)


def test_a_function_gives_its_summary_argument_texts_and_required_arguments():
    def look_up(word: str, limit: int = 3, lang: str | None = None, *rest, **options):
        """Find a word in the dictionary.

        Returns the best entries first.

        Args:
            word (str): the word to find,
                spelled as the user wrote it
            limit: at most this many entries
        """

    description, params = schema_from_function(look_up)
    assert description == "Find a word in the dictionary."
    assert params == {
        "type": "object",
        "required": ["word"],
        "properties": {
            "word": {"type": "string", "description": "the word to find, spelled as the user wrote it"},
            "limit": {"type": "integer", "description": "at most this many entries"},
            "lang": {"type": "string"},
        },
    }
    assert schema_from_function(lambda: None)[0] == "<lambda>"

    def no_doc(x):
        pass

    assert schema_from_function(no_doc) == ("no doc", {"type": "object", "properties": {"x": {}}, "required": ["x"]})


def test_parse_docstring_reads_only_the_first_paragraph_and_the_args_section():
    doc = "Add two numbers\nexactly.\n\nMore text.\n\nArguments:\n  a: first\n  b (int): second\n"
    summary, args = parse_docstring(doc)
    assert summary == "Add two numbers exactly." and args == {"a": "first", "b": "second"}
    assert parse_docstring("") == ("", {})


def test_strict_schema_makes_every_property_required_and_the_optional_ones_nullable():
    schema = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {"type": "string"},
            "mode": {"type": "string", "enum": ["x", "y"]},
            "any": {},
            "list": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "integer"}}}},
        },
    }
    before = copy.deepcopy(schema)
    strict = strict_schema(schema)
    assert schema == before  # a new schema; the tool's own is untouched
    assert strict["required"] == ["a", "mode", "any", "list"] and strict["additionalProperties"] is False
    assert strict["properties"]["a"] == {"type": "string"}
    assert strict["properties"]["mode"] == {"type": ["string", "null"], "enum": ["x", "y", None]}
    assert strict["properties"]["any"] == {"anyOf": [{}, {"type": "null"}]}
    item = strict["properties"]["list"]["items"]
    assert strict["properties"]["list"]["type"] == ["array", "null"]
    assert item["required"] == ["k"] and item["additionalProperties"] is False
    assert item["properties"]["k"] == {"type": ["integer", "null"]}
    assert nullable({"type": ["string", "null"]}) == {"type": ["string", "null"]} and strict_schema(True) is True


SCHEMA = {
    "type": "object",
    "required": ["n"],
    "properties": {
        "n": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opt": {"type": ["string", "null"]},
        "mode": {"enum": ["a", "b"]},
        "inner": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
    },
}


def test_check_arguments_fixes_what_is_safe_in_place_and_names_the_first_wrong_argument():
    args = {"n": 2.0, "tags": None, "opt": None}
    assert check_arguments(SCHEMA, args, "f") is None
    assert args == {"n": 2, "opt": None} and type(args["n"]) is int  # null dropped unless allowed; 2.0 -> 2
    assert check_arguments(SCHEMA, {}, "f") == "error: f is missing required argument 'n'; required: n"
    assert check_arguments(SCHEMA, {"n": 1, "m": 2}, "f") == (
        "error: f has no argument 'm'; arguments are n, tags, opt, mode, inner"
    )
    assert check_arguments({**SCHEMA, "additionalProperties": True}, {"n": 1, "m": 2}, "f") is None
    assert check_arguments(SCHEMA, {"n": 1.5}, "f") == "error: argument 'n' of f must be an integer, got a number"
    assert check_arguments(SCHEMA, {"n": 1, "tags": ["a", 3]}, "f") == (
        "error: item 1 of argument 'tags' of f must be a string, got an integer"
    )
    assert check_arguments(SCHEMA, {"n": 1, "opt": 4}, "f") == (
        "error: argument 'opt' of f must be a string or null, got an integer"
    )
    assert check_arguments(SCHEMA, {"n": 1, "mode": "c"}, "f") == (
        "error: argument 'mode' of f must be one of a, b; got 'c'"
    )
    assert check_arguments(SCHEMA, {"n": 1, "inner": {}}, "f") == (
        "error: argument 'inner' of f is missing required argument 'x'; required: x"
    )
    assert check_arguments(SCHEMA, {"n": True}, "f") == "error: argument 'n' of f must be an integer, got a boolean"


def test_json_type_and_example_arguments_speak_as_the_model_would():
    assert [json_type(v) for v in (None, True, 1, 1.5, [], {}, b"")] == [
        "null",
        "a boolean",
        "an integer",
        "a number",
        "a list",
        "an object",
        "bytes",
    ]
    assert json_type("x" * 50) == f"the string {'x' * 40!r}"
    assert example_arguments(SCHEMA) == '{"n": ..., "tags": ..., "opt": ..., "mode": ..., "inner": ...}'
    assert example_arguments(None) == "{}"


TYPES = {
    "string": st.text(max_size=5),
    "integer": st.integers(-99, 99),
    "number": st.floats(-1e6, 1e6),
    "boolean": st.booleans(),
    "array": st.lists(st.text(max_size=2), max_size=2),
}


@st.composite
def schemas_and_arguments(draw):
    """A flat object schema (some properties optional, some with an enum) and arguments that fit it."""
    names = draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=5, unique=True))
    props, args = {}, {}
    for name in names:
        kind = draw(st.sampled_from(sorted(TYPES)))
        props[name] = {"type": kind}
        if kind == "string" and draw(st.booleans()):
            props[name]["enum"] = ["x", "y"]
        if draw(st.booleans()):
            args[name] = draw(st.sampled_from(props[name]["enum"]) if "enum" in props[name] else TYPES[kind])
    required = [n for n in names if n in args and draw(st.booleans())]
    return {"type": "object", "properties": props, "required": required}, args


@given(schemas_and_arguments())
def test_what_a_strict_mode_model_sends_passes_and_reads_as_what_a_plain_model_sends(case):
    """A strict-mode model sends every property, null for the ones it skips; checked against the tool's own
    schema (as Toolbox.run does) those nulls are dropped."""
    schema, args = case
    strict = strict_schema(schema)
    sent = {name: args.get(name) for name in strict["properties"]}
    assert set(strict["required"]) == set(schema["properties"]) and strict["additionalProperties"] is False
    assert check_arguments(strict, dict(sent), "f") is None  # the strict schema accepts what it asked for
    assert check_arguments(schema, sent, "f") is None and sent == args  # the tool's own schema: nulls gone
