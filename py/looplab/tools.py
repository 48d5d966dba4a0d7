"""Toolbox: the tools a model may ask for — a name, a description, a JSON schema and a function.

The model sees the name, description and schema; the program runs the function. `Toolbox.run`
never raises: every failure comes back as text starting with `error:` that says what was wrong
and what would work, so the model can read it and try again. The JSON-schema work (a schema from
type hints, strict mode, checking arguments) is in schema.py.

    box = Toolbox()

    @box.tool
    def calculate(a: float, b: float, operation: Literal["add", "subtract"]) -> float:
        "Apply one operation to two numbers."
        return a + b if operation == "add" else a - b

    box.run("calculate", '{"a": 2, "b": 3, "operation": "add"}')   # -> "5"

An `async def` tool, or one with retries, runs through `invoke`: under its time limit, a failure
that may pass — a TimeoutError, a ConnectionError or a `TransientError` — is tried again after
`retry.backoff` (doubling from the Toolbox's `retry_delay`, with jitter); any other failure is
final at once. `error_text` is the one place a failure becomes the model's `error:` text. Running
a reply's calls side by side (`Toolbox(parallel=True)`) is parallel.py's.

    @box.tool(timeout=2.0, retries=2)       # stopped at an await after 2 s; tried 3 times in all
    async def fetch_page(url: str) -> str: ...

A timeout stops a tool only where it gives control back: at an `await`. A plain `def` tool runs
to its end once started — Python cannot stop a running function from outside (in CPython a thread
could stop *waiting* for it while it carried on; Pyodide has no threads) — so the Toolbox refuses
a timeout for one. In the page, Stop is what ends a plain tool that never returns.
"""

import asyncio
import inspect
import json
import random
from collections.abc import Callable
from dataclasses import dataclass

from .eventloop import run_sync
from .retry import BASE_DELAY, backoff
from .schema import check_arguments, example_arguments, json_type, schema_from_function, strict_schema

MAX_OUTPUT = 4000  # characters of tool output kept in memory; the rest is cut with a note


class ToolError(Exception):
    """Raise from a tool to send the model a plain `error: <message>` (no exception name)."""


class TransientError(ToolError):
    """Raise from a tool for a failure that may pass (a busy service): tried again if it has retries."""


RETRYABLE = (TimeoutError, ConnectionError, TransientError)  # failures that may pass if tried again


@dataclass
class Tool:
    """One registered tool: what the model sees (name, description, parameters) and what runs."""

    name: str
    description: str
    parameters: dict
    func: Callable
    needs_approval: bool = False
    timeout: float | None = None  # seconds; only an `async def` tool can be stopped (at an await)
    retries: int = 0  # more tries after a failure that may pass (`invoke`)

    @property
    def plain(self) -> bool:
        """A plain `def` tool with no retries: run directly, no event loop needed."""
        return not self.retries and not inspect.iscoroutinefunction(self.func)


class Toolbox:
    """A registry of tools: `register`, `schemas()`, `needs_approval(name)`, `run(name, arguments_json)`.

    `parallel=True`: run_agent runs a reply's independent calls side by side (parallel.py).
    `retry_delay`: the first wait before a retry, in seconds; it doubles each time.
    """

    def __init__(self, max_output: int = MAX_OUTPUT, *, parallel: bool = False, retry_delay: float = BASE_DELAY):
        self._tools: dict[str, Tool] = {}
        self.max_output = max_output
        self.parallel = parallel
        self.retry_delay = retry_delay

    def register(
        self,
        name: str,
        description: str,
        parameters: dict | None,
        func: Callable,
        needs_approval: bool = False,
        *,
        timeout: float | None = None,
        retries: int = 0,
    ) -> Tool:
        """Add a tool with an explicit JSON schema for its arguments (None: no arguments)."""
        if not isinstance(name, str) or not name:
            raise ValueError("a tool needs a non-empty name")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"the timeout of {name} must be more than 0 seconds (it is {timeout!r})")
        if timeout is not None and not inspect.iscoroutinefunction(func):
            raise ValueError(
                f"a timeout can only stop an `async def` tool, at one of its awaits; {name} "
                f"is a plain function, which runs to its end once started — make it "
                f"async def, or leave out the timeout"
            )
        if not isinstance(retries, int) or retries < 0:
            raise ValueError(f"the retries of {name} must be a whole number, 0 or more (it is {retries!r})")
        params = parameters if parameters is not None else {"type": "object", "properties": {}}
        self._tools[name] = Tool(name, description, params, func, needs_approval, timeout, retries)
        return self._tools[name]

    def tool(
        self,
        func: Callable | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: dict | None = None,
        needs_approval: bool = False,
        timeout: float | None = None,
        retries: int = 0,
    ):
        """Decorator: register a function, its schema built from its signature, hints and docstring."""

        def add(f: Callable) -> Callable:
            doc, schema = schema_from_function(f)
            self.register(
                name or f.__name__,
                description or doc,
                parameters or schema,
                f,
                needs_approval,
                timeout=timeout,
                retries=retries,
            )
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
            fn = {
                "name": t.name,
                "description": t.description,
                "parameters": strict_schema(t.parameters) if strict else t.parameters,
            }
            if strict:
                fn["strict"] = True
            out.append({"type": "function", "function": fn})
        return out

    def needs_approval(self, name: str) -> bool:
        """True when the tool changes something outside the program and a person must approve it."""
        return name in self._tools and self._tools[name].needs_approval

    def run(self, name: str, arguments_json: str | dict | None) -> str:
        """Run a tool by name with JSON-text arguments; always returns text, `error: ...` on failure."""
        tool, args = self.prepare(name, arguments_json)
        if tool is None:
            return args
        if not tool.plain:  # async, or retried: on an event loop of its own
            return run_sync(self.invoke(tool, args))
        try:
            result = tool.func(**args)
        except Exception as exc:  # a tool's own bug becomes text the model can act on
            return error_text(tool, exc)
        return self._cut(stringify(result))

    async def run_async(self, name: str, arguments_json: str | dict | None) -> str:
        """`run` as a coroutine: while an `async def` tool waits, other calls go on."""
        tool, args = self.prepare(name, arguments_json)
        return args if tool is None else await self.invoke(tool, args)

    def prepare(self, name: str, arguments_json) -> tuple[Tool | None, dict | str]:
        """The tool and its checked arguments, or (None, the `error:` text saying what is wrong)."""
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(self._tools) or "(none registered)"
            return None, f"error: no tool named {name!r}; tools are {known}"
        args = parse_arguments(tool, arguments_json)
        if isinstance(args, str):
            return None, args
        problem = check_arguments(tool.parameters, args, tool.name)
        return (None, problem) if problem else (tool, args)

    async def invoke(self, tool: Tool, args: dict) -> str:
        """Run one checked call with its time limit and retries; always text."""
        return self._cut(await invoke(tool, args, self.retry_delay))

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_output:
            return text
        cut = len(text) - self.max_output
        return text[: self.max_output] + f"\n[cut {cut} of {len(text)} characters]"


async def invoke(tool: Tool, args: dict, delay: float, rand: Callable[[], float] = random.random) -> str:
    """One checked call with its time limit and retries; always text, `error: ...` on failure."""
    tries = 1 + tool.retries
    for attempt in range(1, tries + 1):
        try:
            result = tool.func(**args)
            if inspect.isawaitable(result):
                result = await (asyncio.wait_for(result, tool.timeout) if tool.timeout else result)
            return stringify(result)
        except RETRYABLE as exc:
            if attempt == tries:
                return error_text(tool, exc, tries)
            await asyncio.sleep(backoff(attempt, rand, delay))  # other calls go on meanwhile
        except Exception as exc:
            return error_text(tool, exc)
    raise AssertionError("unreachable")


def error_text(tool: Tool, exc: Exception, tries: int = 1) -> str:
    """A failed call as the model's `error:` text: a ToolError's own words, else what raised."""
    if isinstance(exc, TimeoutError) and tool.timeout and not str(exc):
        text = f"error: {tool.name} timed out after {tool.timeout:g} s"
    elif isinstance(exc, ToolError):
        text = f"error: {exc}"
    else:
        text = f"error: {tool.name} failed: {type(exc).__name__}: {exc}"
    return text + (f" (tried {tries} times)" if tries > 1 else "")


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
        return (
            f"error: arguments for {tool.name} are not valid JSON ({exc.msg} at character "
            f"{exc.pos}); send an object like {example_arguments(tool.parameters)}"
        )
    if not isinstance(args, dict):
        return (
            f"error: arguments for {tool.name} must be a JSON object, got "
            f"{json_type(args)}; send an object like {example_arguments(tool.parameters)}"
        )
    return args


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
