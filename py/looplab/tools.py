"""Toolbox: the tools a model may ask for — a name, a description, a JSON schema and a function.

The model sees the name, description and schema; the program runs the function. `Toolbox.run`
never raises: every failure comes back as text starting with `error:` that says what was wrong
and what would work, so the model can read it and try again.

    box = Toolbox()

    @box.tool
    def calculate(a: float, b: float, operation: Literal["add", "subtract"]) -> float:
        "Apply one operation to two numbers."
        return a + b if operation == "add" else a - b

    box.run("calculate", '{"a": 2, "b": 3, "operation": "add"}')   # -> "5"
"""

import inspect
import json
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass

MAX_OUTPUT = 4000  # characters of tool output kept in memory; the rest is cut with a note


class ToolError(Exception):
    """Raise from a tool to send the model a plain `error: <message>` (no exception name)."""


@dataclass
class Tool:
    """One registered tool: what the model sees (name, description, parameters) and what runs."""
    name: str
    description: str
    parameters: dict
    func: Callable
    needs_approval: bool = False


class Toolbox:
    """A registry of tools: `register`, `schemas()`, `needs_approval(name)`, `run(name, arguments_json)`."""

    def __init__(self, max_output: int = MAX_OUTPUT):
        self._tools: dict[str, Tool] = {}
        self.max_output = max_output

    def register(self, name: str, description: str, parameters: dict | None, func: Callable,
                 needs_approval: bool = False) -> Tool:
        """Add a tool with an explicit JSON schema for its arguments (None: no arguments)."""
        if not isinstance(name, str) or not name:
            raise ValueError("a tool needs a non-empty name")
        params = parameters if parameters is not None else {"type": "object", "properties": {}}
        self._tools[name] = Tool(name, description, params, func, needs_approval)
        return self._tools[name]

    def tool(self, func: Callable | None = None, *, name: str | None = None,
             description: str | None = None, parameters: dict | None = None,
             needs_approval: bool = False):
        """Decorator: register a function, its schema built from its signature, hints and docstring."""
        def add(f: Callable) -> Callable:
            doc, schema = schema_from_function(f)
            self.register(name or f.__name__, description or doc, parameters or schema, f,
                          needs_approval)
            return f
        return add(func) if func is not None else add

    def names(self) -> list[str]:
        """The registered tool names, in registration order."""
        return list(self._tools)

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def schemas(self, strict: bool = False) -> list[dict]:
        """The tools in the shape a chat-completions model is sent; `strict=True` for strict mode."""
        out = []
        for t in self._tools.values():
            fn = {"name": t.name, "description": t.description,
                  "parameters": strict_schema(t.parameters) if strict else t.parameters}
            if strict:
                fn["strict"] = True
            out.append({"type": "function", "function": fn})
        return out

    def needs_approval(self, name: str) -> bool:
        """True when the tool changes something outside the program and a person must approve it."""
        return name in self._tools and self._tools[name].needs_approval

    def run(self, name: str, arguments_json: str | dict | None) -> str:
        """Run a tool by name with JSON-text arguments; always returns text, `error: ...` on failure."""
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(self._tools) or "(none registered)"
            return f"error: no tool named {name!r}; tools are {known}"
        args = parse_arguments(tool, arguments_json)
        if isinstance(args, str):
            return args
        problem = check_arguments(tool.parameters, args, tool.name)
        if problem:
            return problem
        try:
            result = tool.func(**args)
        except ToolError as exc:
            return f"error: {exc}"
        except Exception as exc:  # a tool's own bug becomes text the model can act on
            return f"error: {name} failed: {type(exc).__name__}: {exc}"
        return self._cut(stringify(result))

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_output:
            return text
        cut = len(text) - self.max_output
        return text[: self.max_output] + f"\n[cut {cut} of {len(text)} characters]"


def stringify(value) -> str:
    """Tool output as text: strings as they are, dicts and lists as JSON, anything else via str."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, (dict, list, tuple, bool)):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


# --- arguments ---------------------------------------------------------------------------------

def parse_arguments(tool: Tool, arguments_json) -> dict | str:
    """JSON text (or a dict, or empty) -> dict, or an `error:` text."""
    if arguments_json is None or (isinstance(arguments_json, str) and not arguments_json.strip()):
        return {}
    if isinstance(arguments_json, dict):
        return dict(arguments_json)
    if not isinstance(arguments_json, str):
        return f"error: arguments for {tool.name} must be JSON text, got {type(arguments_json).__name__}"
    try:
        args = json.loads(arguments_json)
    except json.JSONDecodeError as exc:
        return (f"error: arguments for {tool.name} are not valid JSON ({exc.msg} at character "
                f"{exc.pos}); send an object like {example_arguments(tool.parameters)}")
    if not isinstance(args, dict):
        return (f"error: arguments for {tool.name} must be a JSON object, got "
                f"{json_type(args)}; send an object like {example_arguments(tool.parameters)}")
    return args


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
        return (f"error: {owner} is missing required argument {missing[0]!r}; "
                f"required: {', '.join(required)}")
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


JSON_TYPES = {"string": "a string", "number": "a number", "integer": "an integer",
              "boolean": "true or false", "array": "a list", "object": "an object", "null": "null"}


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


def is_type(value, name: str) -> bool:
    """Whether a value has the JSON schema type `name` (an integral float counts as an integer)."""
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    if name == "null":
        return value is None
    return True  # an unknown type name is not ours to refuse


def allows(schema: dict, value) -> bool:
    """Whether a (sub)schema's type, or its enum when it has no type, admits the value."""
    kinds = schema.get("type")
    if kinds is None:
        return "enum" not in schema or value in schema["enum"]
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return any(is_type(value, k) for k in kinds)


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


def example_arguments(schema: dict) -> str:
    """A short example object naming the schema's properties: {"a": ..., "b": ...}."""
    props = (schema or {}).get("properties", {}) or {}
    return "{" + ", ".join(f'"{k}": ...' for k in props) + "}"


# --- schemas -------------------------------------------------------------------------------------

PY_TO_JSON = {str: "string", int: "integer", float: "number", bool: "boolean",
              list: "array", tuple: "array", dict: "object"}


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
