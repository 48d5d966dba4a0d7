"""No import circle in py/looplab: every import, also one inside a function, read from the source.

An import placed inside a function still closes a circle; it only hides it until that function
runs. So the graph is built from every `import` and `from ... import` anywhere in a module's
syntax tree. An edge goes to the module named (`from .models.errors import ModelError` ->
looplab.models.errors; `from . import trace` -> looplab.trace), not to the packages around it:
every submodule import would otherwise reach back to its package's __init__.

The core imports no adapter package either. `models/` (scripted replies, the live adapters, the
offline fake brains) imports the core; the core (every module of py/looplab outside models/)
never imports models/, so what it needs from a model call lives in core modules named for it
(modelerror.py: ModelError; modelmode.py: which kind of model a run uses). The exceptions are
entry points, which pick or show a model for the learner: the package's `__init__` (its public
names include `scripted` and `pick_model`) and talk.py (the terminal chat prints a live model's
streamed text as it comes, through models.stream). `ENTRIES` names them.

The agent library imports nothing from the course machinery. `_course/` (lesson files, checks,
notebooks, the chat, the command line, serving) imports the library; no module of the library
(py/looplab outside `_course/`) imports `_course`, but the package's two faces: its `__init__`,
which hands on the few names the lessons use (`from looplab import expect`), and `__main__`, which
starts the command line. `FACES` names them.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "py" / "looplab"


def module_names(root: Path) -> dict[str, Path]:
    """{dotted module name: file} for every .py under the package folder `root`."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """(module imported, line) for each import of a package module in `path`, wherever it stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names if alias.name in known]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                whole = f"{target}.{alias.name}"
                if whole in known:
                    out.append((whole, node.lineno))
                elif target in known:
                    out.append((target, node.lineno))
    return out


ENTRIES = {"looplab", "looplab._course.talk"}
FACES = {"looplab", "looplab.__main__"}


def adapter_imports(root: Path, adapters: str = "models", entries: frozenset | set = frozenset()) -> list[str]:
    """Each import of the adapter package `adapters` by a core module, as "module:line imported"
    (one outside that package and not in `entries`)."""
    known = module_names(root)
    inside = f"{root.name}.{adapters}"
    out = []
    for name, path in known.items():
        if name == inside or name.startswith(inside + ".") or name in entries:
            continue
        for target, line in imports_of(name, path, known):
            if target == inside or target.startswith(inside + "."):
                out.append(f"{name}:{line} {target}")
    return sorted(out)


def circles(root: Path) -> list[list[str]]:
    """Each import circle as the modules on it, "module:line" each (strongly connected components)."""
    known = module_names(root)
    edges = {name: imports_of(name, path, known) for name, path in known.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target, _ in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:  # node is the root of a component: pop it off the stack
            group = set()
            while node not in group:
                group.add(stack.pop())
            on_stack.difference_update(group)
            if len(group) > 1 or any(t == node for t, _ in edges[node]):
                found.append(sorted({f"{m}:{line}" for m in group for t, line in edges[m] if t in group}))

    for name in known:
        if name not in index:
            visit(name)
    return found


def test_looplab_has_no_import_circle():
    known = module_names(PACKAGE)
    assert {"looplab", "looplab.loop", "looplab.tools", "looplab.models.endpoint"} <= set(known)
    assert {t for t, _ in imports_of("looplab.tools", known["looplab.tools"], known)} == {
        "looplab.eventloop",
        "looplab.retry",
        "looplab.schema",
    }
    assert "looplab.tools" in {t for t, _ in imports_of("looplab.parallel", known["looplab.parallel"], known)}
    assert circles(PACKAGE) == [], "import circles (module:line of each import on the circle)"


def test_a_circle_hidden_inside_a_function_is_found(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import f\n")
    (package / "a.py").write_text("from . import b\n\ndef f():\n    return b.g()\n")
    (package / "b.py").write_text("def g():\n    from .a import f  # hidden in a function\n    return f\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from ..a import f\nfrom .. import b\n")
    assert circles(package) == [["pkg.a:1", "pkg.b:2"]]
    assert imports_of("pkg.sub.c", package / "sub" / "c.py", module_names(package)) == [("pkg.a", 1), ("pkg.b", 2)]


def test_the_core_imports_no_models_module():
    known = module_names(PACKAGE)
    assert ENTRIES <= set(known) and {"looplab.modelerror", "looplab.modelmode"} <= set(known)
    assert adapter_imports(PACKAGE, "models", ENTRIES) == [], "core modules importing looplab.models"
    errors = {t for t, _ in imports_of("looplab.models.errors", known["looplab.models.errors"], known)}
    assert "looplab.modelerror" in errors, "models/ imports ModelError from the core"
    # without the entry points' exception, the check sees them: it is not blind to imports of models/
    found = adapter_imports(PACKAGE, "models")
    assert any(f.startswith("looplab._course.talk:") for f in found) and any(f.startswith("looplab:") for f in found)


def test_an_import_of_the_adapter_package_is_found(tmp_path):
    package = tmp_path / "pkg"
    (package / "models").mkdir(parents=True)
    files = {
        "__init__.py": "from .models import pick\n",
        "models/__init__.py": "from ..core import f\n\ndef pick():\n    return f\n",
        "models/errors.py": "class Oops(Exception):\n    pass\n",
        "core.py": "def f():\n    from .models.errors import Oops  # hidden\n    return Oops\n",
        "cli.py": "import pkg.models\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    assert adapter_imports(package, "models", {"pkg"}) == ["pkg.cli:1 pkg.models", "pkg.core:2 pkg.models.errors"]
    assert adapter_imports(package, "models", {"pkg", "pkg.cli", "pkg.core"}) == []


def test_the_agent_library_imports_nothing_from_the_course():
    known = module_names(PACKAGE)
    course = {name for name in known if name.startswith("looplab._course.")}
    assert {"looplab._course.lesson", "looplab._course.mine", "looplab._course.cli"} <= course
    assert {"looplab.loop", "looplab.tools", "looplab.seams", "looplab.models.chat"} <= set(known) - course
    assert adapter_imports(PACKAGE, "_course", FACES) == [], "library modules importing looplab._course"
    # the course imports the library, one way
    lesson = {t for t, _ in imports_of("looplab._course.lesson", known["looplab._course.lesson"], known)}
    assert "looplab.trace" in lesson and "looplab.modelmode" in lesson
    # without the faces' exception, the check sees them: it is not blind to imports of _course
    found = adapter_imports(PACKAGE, "_course")
    assert any(f.startswith("looplab:") for f in found) and any(f.startswith("looplab.__main__:") for f in found)
