"""README's module map names every module of py/looplab (and of its _course/) and every file of web/src, one line each."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def mapped(heading: str) -> list[str]:
    """The first word of each line of the code block after `heading` in README's module map."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Module map") :]
    block = re.search(re.escape(heading) + r".*?```\n(.*?)```", section, re.S)
    assert block, f"README's module map has no block after {heading!r}"
    return [line.split()[0] for line in block[1].splitlines() if line and not line.startswith(" ")]


def test_the_map_names_each_looplab_module_once():
    names = mapped("`py/looplab/`")
    package = ROOT / "py" / "looplab"
    modules = sorted(p.name for p in package.glob("*.py")) + sorted(
        f"{p.name}/" for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    )
    assert sorted(names) == sorted(modules)
    assert len(names) == len(set(names)) and "loop.py" in names and "models/" in names and "_course/" in names


def test_the_map_names_each_course_module_once():
    names = mapped("`py/looplab/_course/`")
    modules = sorted(p.name for p in (ROOT / "py" / "looplab" / "_course").glob("*.py"))
    assert sorted(names) == modules
    assert len(names) == len(set(names)) and "lesson.py" in names and "cli.py" in names


def test_the_map_names_each_file_of_web_src_once():
    names = mapped("`web/src/`")
    source = ROOT / "web" / "src"
    files = sorted(
        p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    assert sorted(names) == files
    assert len(names) == len(set(names)) and any(n.endswith("main.js") for n in names)
