"""The start's README (web/src/page/start/README.md) matches the code: its numbered steps are the
boot sequence, each names files and functions that exist, every file of both start/ folders is
named, and the switches it lists are those visit.js reads (run in Node.js)."""

import re
from pathlib import Path

from conftest import node_module

WEB = Path(__file__).resolve().parents[2] / "web"
README = WEB / "src" / "page" / "start" / "README.md"
START = [WEB / "src" / "page" / "start", WEB / "src" / "worker" / "start"]
AROUND = [WEB / "boot.js", WEB / "src" / "page" / "run" / "runner.js", WEB / "src" / "worker" / "worker.js"]
SEQUENCE = ["prestart", "boot", "early pool", "init", "take", "ready", "kept", "spare"]
STEP = re.compile(r"^(\d+)\. \*\*([^*]+)\*\* \(([^)]*)\)", re.M)
NAMED = re.compile(r"`([\w.]+\.js)`\s+`(\w+)`")

visit_js = node_module("web/src/page/start/visit.js")


def files() -> dict[str, Path]:
    """The start's files by name: both start/ folders and the three files around them."""
    found = [p for folder in START for p in folder.glob("*.js")] + AROUND
    assert len({p.name for p in found}) == len(found), "two files of the start share a name"
    return {p.name: p for p in found}


def defines(path: Path, name: str) -> bool:
    """Whether `path` defines `name`: a function, a class, a constant or a method."""
    text = path.read_text(encoding="utf-8")
    pattern = (
        rf"(function\s+{name}\b|class\s+{name}\b|\b(const|let)\s+{name}\s*=|^\s+(async\s+)?{name}\s*\([^)]*\)\s*\{{)"
    )
    return re.search(pattern, text, re.M) is not None


def steps(text: str) -> list[tuple[int, str, list[tuple[str, str]]]]:
    return [(int(n), name, NAMED.findall(where)) for n, name, where in STEP.findall(text)]


def test_the_numbered_steps_are_the_boot_sequence_and_name_what_exists():
    text = README.read_text(encoding="utf-8")
    found = steps(text)
    assert [n for n, _, _ in found] == list(range(1, len(SEQUENCE) + 1))
    assert [name for _, name, _ in found] == SEQUENCE
    known = files()
    for number, name, where in found:
        assert where, f"step {number} ({name}) names no file and function"
        for file, function in where:
            assert file in known, f"step {number} names {file}, which is not a file of the start"
            assert defines(known[file], function), f"step {number}: {file} defines no {function}"
    named = {file for file, _ in NAMED.findall(text)}
    for file, function in NAMED.findall(text):  # the prose's own references too
        assert file in known and defines(known[file], function), f"{file} {function}"
    assert sorted(p.name for folder in START for p in folder.glob("*.js") if p.name not in named) == []


def test_a_step_naming_a_function_that_is_gone_is_found(tmp_path):
    path = tmp_path / "x.js"
    path.write_text("export function here() {}\nclass Pool {\n  take(endpoint) {\n    return 1;\n  }\n}\n")
    assert defines(path, "here") and defines(path, "take") and defines(path, "Pool")
    assert not defines(path, "gone") and not defines(path, "endpoint")
    assert steps("1. **boot** (`a.js` `b`, `c.js` `d`) — text\n2. **x** () — none") == [
        (1, "boot", [("a.js", "b"), ("c.js", "d")]),
        (2, "x", []),
    ]


def test_the_switches_listed_are_the_ones_visit_js_reads(visit_js):
    listed = re.findall(r"^\| `\?(\w+)=(\w+)`\s*\|", README.read_text(encoding="utf-8"), re.M)
    switches = visit_js.get("SWITCHES")
    assert sorted(listed) == sorted((name, value) for name, values in switches.items() for value in values[1:])
    plain = visit_js.call("readVisit", {})
    for name, value in listed:
        visit = visit_js.call("readVisit", {"search": f"?lesson=x&{name}={value}"})
        assert visit[name] == value and visit != plain
    assert plain == {"isolated": False, "warm": False, **{name: values[0] for name, values in switches.items()}}
    odd = visit_js.call("readVisit", {"isolated": True, "controlled": True, "search": "?spare=maybe&early=OFF"})
    assert odd == {**plain, "isolated": True, "warm": True}  # a value not listed is no switch
