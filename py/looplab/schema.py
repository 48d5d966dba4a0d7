"""JSON schemas of tools: built from a function's type hints and docstring, made strict, checked.

    schema_from_function(f)              -> (description, parameters) from f's hints and its `Args:`
    strict_schema(schema)                -> every property required, the optional ones nullable
    strict_problems(schema)              -> what strict mode would refuse in a schema
    check_arguments(schema, args, owner) -> None, or an `error:` text naming the first wrong argument

The check covers what tool arguments use: type (one or a list), enum, required, additionalProperties,
items and nested properties; anything else in a schema (anyOf, minimum, pattern ...) is left to
the tool. Nothing here knows about the Toolbox: tools.py imports this module, never the reverse.
"""

import inspect
import types
import typing
from collections.abc import Callable


# --- building a schema from a function -----------------------------------------------------

PY_TO_JSON = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
}


def schema_from_function(func: Callable) -> tuple[str, dict]:
    """Build (description, parameters schema) from a function's signature, hints and docstring."""
    description, arg_docs = parse_docstring(func.__doc__ or "")
    hints = typing.get_type_hints(func)
    props, required = {}, []
    for pname, param in inspect.signature(func).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema, nullable = type_schema(hints.get(pname, typing.Any))
        if pname in arg_docs:
            schema = {**schema, "description": arg_docs[pname]}
        props[pname] = schema
        if param.default is param.empty and not nullable:
            required.append(pname)
    parameters = {"type": "object", "properties": props, "required": required}
    return description or func.__name__.replace("_", " "), parameters


def type_schema(hint) -> tuple[dict, bool]:
    """A Python type hint as a JSON schema, and whether it admits None."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable = len(options) < len(typing.get_args(hint))
        if len(options) == 1:
            return type_schema(options[0])[0], nullable
        return {"anyOf": [type_schema(o)[0] for o in options]}, nullable
    if origin is typing.Literal:
        values = list(typing.get_args(hint))
        kinds = {PY_TO_JSON.get(type(v), "string") for v in values}
        schema = {"type": kinds.pop()} if len(kinds) == 1 else {}
        return {**schema, "enum": values}, False
    if origin in (list, tuple, set):
        args = typing.get_args(hint)
        schema = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = type_schema(args[0])[0]
        return schema, False
    if origin is dict:
        return {"type": "object"}, False
    if hint in PY_TO_JSON:
        return {"type": PY_TO_JSON[hint]}, False
    if hint is type(None):
        return {"type": "null"}, True
    return {}, False  # Any or an unknown class: accept any JSON value


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph of a docstring, and the argument lines of its `Args:` section."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary, args, section = [], {}, "summary"
    for line in lines:
        stripped = line.strip()
        if stripped.lower() in ("args:", "arguments:", "parameters:"):
            section = "args"
        elif section == "summary":
            if not stripped and summary:
                section = "rest"
            elif stripped:
                summary.append(stripped)
        elif section == "args" and stripped:
            key, colon, text = stripped.partition(":")
            key = key.split("(")[0].strip()
            if colon and key.isidentifier():
                args[key] = text.strip()
            elif args:
                last = list(args)[-1]
                args[last] = f"{args[last]} {stripped}"
    return " ".join(summary), args


# --- strict mode ---------------------------------------------------------------------------


def strict_schema(schema: dict) -> dict:
    """The strict-mode variant: every property required, no extra properties, optional ones nullable."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if out.get("type") == "object" or "properties" in out:
        props = out.get("properties", {}) or {}
        required = set(out.get("required", []) or [])
        new_props = {}
        for key, sub in props.items():
            sub = strict_schema(sub)
            if key not in required:
                sub = nullable(sub)
            new_props[key] = sub
        out["properties"] = new_props
        out["required"] = list(props)
        out["additionalProperties"] = False
    if out.get("type") == "array" and isinstance(out.get("items"), dict):
        out["items"] = strict_schema(out["items"])
    return out


def strict_problems(schema, where: str = "the schema") -> list[str]:
    """What strict mode refuses in a schema: an object without `additionalProperties: false`, or
    with a property that is not required (OpenAI answers such a request with a 400)."""
    if not isinstance(schema, dict):
        return []
    out = []
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False:
            out.append(f"{where}: 'additionalProperties' must be false")
        missing = [k for k in props if k not in (schema.get("required") or [])]
        if missing:
            out.append(f"{where}: every property must be required; {', '.join(missing)} is not")
        for key, sub in props.items():
            out += strict_problems(sub, f"{where}.{key}")
    for key in ("items", "anyOf"):
        subs = schema.get(key)
        for i, sub in enumerate(subs if isinstance(subs, list) else [subs] if subs else []):
            out += strict_problems(sub, f"{where}.{key}" + (f"[{i}]" if isinstance(subs, list) else ""))
    return out


def nullable(schema: dict) -> dict:
    """The schema with null also allowed (in its type and its enum)."""
    kinds = schema.get("type")
    if kinds is None:
        return {"anyOf": [schema, {"type": "null"}]}
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "null" in kinds:
        return schema
    out = {**schema, "type": [*kinds, "null"]}
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


# --- checking arguments against a schema ---------------------------------------------------


def check_arguments(schema: dict, args: dict, owner: str) -> str | None:
    """Validate an object against its schema (in place: drops nulls for optional ones); `owner` names it in errors."""
    schema = schema or {}
    props = schema.get("properties", {}) or {}
    required = list(schema.get("required", []) or [])
    for key in [k for k, v in args.items() if v is None and k not in required]:
        if not allows(props.get(key, {}), None):
            del args[key]  # strict-mode models send null for an optional argument they skip
    missing = [k for k in required if k not in args]
    if missing:
        return f"error: {owner} is missing required argument {missing[0]!r}; required: {', '.join(required)}"
    if schema.get("additionalProperties") in (None, False):
        extra = [k for k in args if k not in props]
        if extra:
            names = ", ".join(props) or "none"
            return f"error: {owner} has no argument {extra[0]!r}; arguments are {names}"
    for key, value in args.items():
        if key in props:
            problem = check_value(props[key], value, f"argument {key!r} of {owner}")
            if problem:
                return problem
            if props[key].get("type") == "integer" and isinstance(value, float):
                args[key] = int(value)
    return None


def check_value(schema: dict, value, where: str) -> str | None:
    """One value against one (sub)schema: type, enum, array items, nested objects."""
    kinds = schema.get("type")
    if kinds is not None and not allows(schema, value):
        kinds = kinds if isinstance(kinds, list) else [kinds]
        want = " or ".join(JSON_TYPES.get(k, k) for k in kinds)
        return f"error: {where} must be {want}, got {json_type(value)}"
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(str(v) for v in schema["enum"])
        return f"error: {where} must be one of {allowed}; got {value!r}"
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problem = check_value(schema["items"], item, f"item {i} of {where}")
            if problem:
                return problem
    if isinstance(value, dict) and "properties" in schema:
        return check_arguments(schema, value, where)
    return None


def allows(schema: dict, value) -> bool:
    """Whether a (sub)schema's type, or its enum when it has no type, admits the value."""
    kinds = schema.get("type")
    if kinds is None:
        return "enum" not in schema or value in schema["enum"]
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return any(is_type(value, k) for k in kinds)


def is_type(value, name: str) -> bool:
    """Whether a value has the JSON schema type `name` (an integral float counts as an integer)."""
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    if name == "null":
        return value is None
    return True  # an unknown type name is not ours to refuse


JSON_TYPES = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def json_type(value) -> str:
    """The JSON name of a Python value's type, as the model would say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def example_arguments(schema: dict) -> str:
    """A short example object naming the schema's properties: {"a": ..., "b": ...}."""
    props = (schema or {}).get("properties", {}) or {}
    return "{" + ", ".join(f'"{k}": ...' for k in props) + "}"
