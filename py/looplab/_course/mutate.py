"""Mutants of a piece of code: each one small change a learner could make by mistake.

`mutants(source)` lists every mutant of `source` (an exercise's solution), each with the line it
changes and what it changes, made by these operators, one change at a time:

    compare       `<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=`, `in` ↔ `not in`, `is` ↔ `is not`
    and-or        `and` ↔ `or`
    constant      a number ± 1, `True` ↔ `False`
    remove        a simple statement taken out (`pass` in its place)
    break         `break` ↔ `continue`
    else          an `else` (or `elif` chain) dropped
    swap          the first two positional arguments of a call swapped
    return        a returned value replaced by `None`

Docstrings, `print(...)` (the learner's own view of a run, not its behaviour) and `pass` are left
alone, and so are imports and definitions themselves. Strings are not changed: a check compares
what code does, not the words of its messages.

A mutant's `key` names it without line numbers, so that it still names the same mutant after
lines above it moved: the operator, the line as written, the change, and which of identical ones.
"""

import ast
import copy
from dataclasses import dataclass

SWAPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
SYMBOLS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Delete, ast.Assert)


@dataclass(frozen=True)
class Mutant:
    """One mutant: its operator, the line it changes (1-based, and as written), the change, the code."""

    operator: str
    line: int
    text: str
    change: str
    source: str
    key: str = ""

    def __str__(self) -> str:
        return f"line {self.line} `{self.text}`: {self.change}"


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def is_print(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "print"
    )


def short(node: ast.AST, size: int = 60) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= size else text[: size - 1] + "…"


def points(tree: ast.AST) -> list[tuple[ast.AST, str, str, object]]:
    """Every place a mutant can be made: (node, operator, change as words, what to do)."""
    found = []
    bodies = []  # every statement list, to take statements out of
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                bodies.append(block)
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                new = SWAPS[type(op)]
                found.append((node, "compare", f"`{SYMBOLS[type(op)]}` → `{SYMBOLS[new]}`", ("op", i, new)))
        elif isinstance(node, ast.BoolOp):
            new, words = (ast.Or, "`and` → `or`") if isinstance(node.op, ast.And) else (ast.And, "`or` → `and`")
            found.append((node, "and-or", words, ("boolop", new)))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
            found.append((node, "constant", f"`{node.value!r}` → `{node.value + 1!r}`", ("value", node.value + 1)))
            found.append((node, "constant", f"`{node.value!r}` → `{node.value - 1!r}`", ("value", node.value - 1)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            found.append((node, "constant", f"`{node.value}` → `{not node.value}`", ("value", not node.value)))
        elif isinstance(node, ast.Break):
            found.append((node, "break", "`break` → `continue`", ("loopjump", ast.Continue)))
        elif isinstance(node, ast.Continue):
            found.append((node, "break", "`continue` → `break`", ("loopjump", ast.Break)))
        elif isinstance(node, (ast.If, ast.For, ast.While, ast.AsyncFor)) and node.orelse:
            found.append((node, "else", "its `else` dropped", ("noelse",)))
        elif isinstance(node, ast.Call):
            positional = [a for a in node.args if not isinstance(a, ast.Starred)]
            if len(positional) == len(node.args) >= 2 and ast.dump(node.args[0]) != ast.dump(node.args[1]):
                found.append((node, "swap", "its first two arguments swapped", ("swap",)))
        elif isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                found.append((node, "return", "returns None", ("return",)))
    for block in bodies:
        for stmt in block:
            if isinstance(stmt, SIMPLE) and not is_docstring(stmt) and not is_print(stmt):
                found.append((stmt, "remove", "taken out", ("remove", block)))
    return found


def apply(node: ast.AST, action: tuple) -> None:
    """Make the change in place (on a copy of the tree)."""
    kind = action[0]
    if kind == "op":
        node.ops[action[1]] = action[2]()
    elif kind == "boolop":
        node.op = action[1]()
    elif kind == "value":
        node.value = action[1]
    elif kind == "noelse":
        node.orelse = []
    elif kind == "swap":
        node.args[0], node.args[1] = node.args[1], node.args[0]
    elif kind == "return":
        node.value = None


def mutants(source: str) -> list[Mutant]:
    """Every mutant of `source`, in the order of the code; each differs from it in one change."""
    tree = ast.parse(source)
    lines = source.splitlines()
    out, seen = [], {}
    for k, (node, operator, change, action) in enumerate(points(tree)):
        twin = copy.deepcopy(tree)
        target, parent_block = None, None
        for j, (other, _, _, other_action) in enumerate(points(twin)):
            if j == k:
                target = other
                parent_block = other_action[1] if other_action[0] == "remove" else None
                break
        if action[0] == "remove":
            index = next(i for i, s in enumerate(parent_block) if s is target)
            parent_block[index] = ast.copy_location(ast.Pass(), target)
        elif action[0] == "loopjump":
            replaced = replace_node(twin, target, ast.copy_location(action[1](), target))
            assert replaced
        else:
            apply(target, action)
        ast.fix_missing_locations(twin)
        code = ast.unparse(twin)
        text = lines[node.lineno - 1].strip() if node.lineno - 1 < len(lines) else short(node)
        if operator == "remove":
            change = f"`{short(node)}` taken out"
        elif operator in ("swap", "return", "else"):
            change = f"`{short(node if operator != 'else' else node.orelse[0])}`: {change}"
        base = f"{operator} | {text} | {change}"
        seen[base] = seen.get(base, 0) + 1
        out.append(Mutant(operator, node.lineno, text, change, code, f"{base} | {seen[base]}"))
    return out


def replace_node(tree: ast.AST, old: ast.AST, new: ast.AST) -> bool:
    """Put `new` where `old` is in `tree`."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return True
            elif value is old:
                setattr(parent, field, new)
                return True
    return False
