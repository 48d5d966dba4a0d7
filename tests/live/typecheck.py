"""Check a JSON value against the openai package's request TypedDicts — strictly: no unknown keys anywhere."""

import collections.abc
import typing

import typing_extensions as te

WRAPPERS = {te.Required, te.NotRequired, te.ReadOnly, typing.Required, typing.NotRequired}


def problems(value, tp, where: str = "$") -> list[str]:
    """What is wrong with `value` as a `tp` (an empty list when it conforms)."""
    origin, args = te.get_origin(tp), te.get_args(tp)
    if origin in WRAPPERS or origin is te.Annotated:
        return problems(value, args[0], where)
    if tp is typing.Any or tp is object:
        return []
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        tries = [problems(value, t, where) for t in args]
        return [] if any(not p for p in tries) else min(tries, key=len)
    if origin is te.Literal or origin is typing.Literal:
        return [] if value in args else [f"{where}: {value!r} is not one of {args}"]
    if te.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: expected an object for {tp.__name__}"]
        hints = te.get_type_hints(tp, include_extras=True)
        out = [f"{where}.{k}: not a field of {tp.__name__}" for k in value if k not in hints]
        out += [f"{where}: {tp.__name__} needs {k!r}" for k in tp.__required_keys__ if k not in value]
        for key, item in value.items():
            if key in hints:
                out += problems(item, hints[key], f"{where}.{key}")
        return out
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence, typing.List):
        if not isinstance(value, list):
            return [f"{where}: expected a list"]
        return [p for i, item in enumerate(value) for p in problems(item, args[0] if args else object, f"{where}[{i}]")]
    if origin in (dict, typing.Dict, collections.abc.Mapping):
        return [] if isinstance(value, dict) else [f"{where}: expected an object"]
    if tp is type(None):
        return [] if value is None else [f"{where}: expected null"]
    if tp in (str, int, bool):
        return [] if isinstance(value, tp) else [f"{where}: expected {tp.__name__}, got {value!r}"]
    if tp is float:
        return [] if isinstance(value, (int, float)) else [f"{where}: expected a number"]
    return []  # anything more exotic is accepted
