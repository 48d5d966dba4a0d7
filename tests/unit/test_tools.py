"""Toolbox: registration, schemas from signatures, strict schemas, validation and error texts."""

import json
from typing import Literal

import pytest

from looplab import Toolbox, ToolError
from looplab.tools import schema_from_function, strict_schema


def make_box() -> Toolbox:
    box = Toolbox(max_output=50)

    @box.tool
    def convert(amount: float, unit: Literal["km", "mi"], precise: bool = False, tags: list[str] | None = None) -> dict:
        """Convert a distance between kilometres and miles.

        Args:
            amount: the distance to convert
            unit: the unit of `amount`
        """
        factor = 0.621371 if unit == "km" else 1.609344
        return {"value": round(amount * factor, 6 if precise else 1), "tags": tags or []}

    @box.tool(needs_approval=True)
    def send_email(to: str, body: str) -> str:
        """Send an e-mail."""
        return f"sent to {to}"

    box.register(
        "shout",
        "Repeat a text many times.",
        {
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["text", "times"],
        },
        lambda text, times: text.upper() * times,
    )
    box.register("fail", "Always fails.", None, lambda: 1 / 0)
    box.register(
        "refuse", "Refuses politely.", None, lambda: (_ for _ in ()).throw(ToolError("not today; try tomorrow"))
    )
    return box


def test_decorator_builds_schema_from_hints_and_docstring():
    schema = {s["function"]["name"]: s["function"] for s in make_box().schemas()}["convert"]
    params = schema["parameters"]
    assert schema["description"] == "Convert a distance between kilometres and miles."
    assert params["properties"]["amount"] == {"type": "number", "description": "the distance to convert"}
    assert params["properties"]["unit"]["enum"] == ["km", "mi"] and params["properties"]["unit"]["type"] == "string"
    assert params["properties"]["precise"] == {"type": "boolean"}
    assert params["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert params["required"] == ["amount", "unit"]


def test_schema_types_int_dict_optional():
    def f(n: int, d: dict, maybe: str | None) -> None:
        """Do f."""

    _, params = schema_from_function(f)
    assert params["properties"] == {"n": {"type": "integer"}, "d": {"type": "object"}, "maybe": {"type": "string"}}
    assert params["required"] == ["n", "d"]


def test_strict_schema_requires_everything_and_allows_null_for_optional():
    strict = {s["function"]["name"]: s["function"] for s in make_box().schemas(strict=True)}["convert"]
    params = strict["parameters"]
    assert strict["strict"] is True and params["additionalProperties"] is False
    assert params["required"] == ["amount", "unit", "precise", "tags"]
    assert params["properties"]["precise"]["type"] == ["boolean", "null"]
    assert params["properties"]["amount"]["type"] == "number"
    nested = strict_schema(
        {"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}}}}
    )
    assert nested["properties"]["o"]["type"] == ["object", "null"]
    assert nested["properties"]["o"]["additionalProperties"] is False


def test_run_success_stringifies_and_cuts():
    box = make_box()
    assert json.loads(box.run("convert", '{"amount": 10, "unit": "km"}')) == {"value": 6.2, "tags": []}
    out = box.run("shout", '{"text": "ab", "times": 40}')
    assert out.startswith("AB" * 25) and out.endswith("[cut 30 of 80 characters]")


def test_strict_null_for_optional_argument_is_dropped():
    box = make_box()
    assert json.loads(box.run("convert", '{"amount": 1, "unit": "mi", "precise": null, "tags": null}'))["value"] == 1.6


@pytest.mark.parametrize(
    "name,arguments,expected",
    [
        ("convrt", "{}", "error: no tool named 'convrt'; tools are convert, send_email, shout, fail, refuse"),
        ("convert", "{amount: 1}", "error: arguments for convert are not valid JSON"),
        ("convert", "[1, 2]", "error: arguments for convert must be a JSON object, got a list"),
        ("convert", '{"unit": "km"}', "error: convert is missing required argument 'amount'; required: amount, unit"),
        (
            "convert",
            '{"amount": 1, "unit": "km", "speed": 3}',
            "error: convert has no argument 'speed'; arguments are amount, unit, precise, tags",
        ),
        (
            "convert",
            '{"amount": "ten", "unit": "km"}',
            "error: argument 'amount' of convert must be a number, got the string 'ten'",
        ),
        ("convert", '{"amount": 1, "unit": "yd"}', "error: argument 'unit' of convert must be one of km, mi; got 'yd'"),
        (
            "convert",
            '{"amount": 1, "unit": "km", "tags": [1]}',
            "error: item 0 of argument 'tags' of convert must be a string, got an integer",
        ),
        ("shout", '{"text": "a", "times": 1.5}', "error: argument 'times' of shout must be an integer, got a number"),
        ("shout", '{"text": "a", "times": true}', "error: argument 'times' of shout must be an integer, got a boolean"),
        ("fail", "", "error: fail failed: ZeroDivisionError: division by zero"),
        ("refuse", "{}", "error: not today; try tomorrow"),
    ],
)
def test_run_errors_say_what_was_wrong_and_what_works(name, arguments, expected):
    out = make_box().run(name, arguments)
    assert isinstance(out, str) and out.startswith(expected)


def test_run_accepts_dict_arguments_and_integral_floats():
    box = make_box()
    assert box.run("shout", {"text": "hi", "times": 2.0}) == "HIHI"
    assert box.run("shout", 42).startswith("error: arguments for shout must be JSON text")


def test_needs_approval_and_names():
    box = make_box()
    assert box.needs_approval("send_email") and not box.needs_approval("convert")
    assert not box.needs_approval("nope")
    assert box.names() == ["convert", "send_email", "shout", "fail", "refuse"] and len(box) == 5
    assert "shout" in box and "nope" not in box


def test_register_rejects_empty_name():
    with pytest.raises(ValueError):
        Toolbox().register("", "x", None, lambda: 1)


def test_nested_objects_are_validated_with_the_path_in_the_error():
    box = Toolbox()
    box.register(
        "put",
        "Store a record.",
        {
            "type": "object",
            "properties": {"record": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
            "required": ["record"],
        },
        lambda record: record["x"],
    )
    assert box.run("put", '{"record": {"x": "ok"}}') == "ok"
    assert (
        box.run("put", '{"record": {}}')
        == "error: argument 'record' of put is missing required argument 'x'; required: x"
    )
    assert (
        box.run("put", '{"record": {"x": 1}}')
        == "error: argument 'x' of argument 'record' of put must be a string, got an integer"
    )
    assert (
        box.run("put", '{"record": {"x": "a", "y": 1}}')
        == "error: argument 'record' of put has no argument 'y'; arguments are x"
    )
