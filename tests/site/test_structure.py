"""The page's feature folders and the directions of their imports (web/src), read from the source.

`page/` holds `main.js`, the wiring, and one folder a feature. The folders import one way, down
`ORDER`: the proof pages replay a record in a Python of their own (`proof/` -> `run/`), a run starts Python (`run/` -> `start/`), the first worker needs the model's endpoint
(`start/` -> `model/`), a mode knows foreign code (`model/` -> `lesson/`), the lesson on screen shows
its checks (`lesson/` -> `panels/`), the Context panel draws a step (`panels/` -> `inspector/`), and
all of them use `ui/`. `chat/` uses `ui/` alone. Nothing imports `main.js`. The worker and the page
never import each other; both import `shared/`, which imports neither; the worker's `start/` imports
nothing of the worker around it.

An import is any relative module specifier in a file: `import ... from`, `export ... from`,
`import(...)`, also a JSDoc type's `import("...")` (a type is a dependency too).

What this visit is — cross-origin isolated, warm — is read in one module, `page/start/visit.js`
(which asks `shared/gaps.js`, the worker's and the page's one reader of cross-origin isolation);
the rest of the page is handed it. And no `window.looplab…` global carries anything between scripts:
`<head>` hands the first worker to the app through `page/start/handoff.js`.
"""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "web" / "src"
ORDER = ["proof", "run", "start", "model", "lesson", "panels", "inspector", "ui"]  # each imports only those after it
ALONE = {"chat": {"ui"}}  # folders outside the order, and what each may import
SPECIFIER = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(\s*(?:/\*.*?\*/\s*)?|\bimport\s+)(["'])(\.{1,2}/[^"']+)\1""", re.S)


def imports(src: Path) -> dict[str, set[str]]:
    """{file: files it imports}, as paths relative to `src`, for every .js file under it."""
    out = {}
    for path in sorted(src.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        found = {(path.parent / m[2]).resolve() for m in SPECIFIER.finditer(text)}
        out[path.relative_to(src).as_posix()] = {f.relative_to(src.resolve()).as_posix() for f in found}
    return out


def place(file: str) -> str:
    """Where a file of web/src stands: "page/<folder>", "page" (main.js), "worker/start", "worker" or "shared"."""
    parts = file.split("/")
    if parts[0] == "page":
        return "page" if len(parts) == 2 else f"page/{parts[1]}"
    if parts[0] == "worker":
        return "worker/start" if len(parts) > 2 and parts[1] == "start" else "worker"
    return parts[0]


def may_import(here: str, there: str) -> bool:
    """Whether a file standing at `here` may import one at `there` (both from `place`)."""
    if here == there or there == "shared":
        return True
    if here == "page":
        return there.startswith("page/")
    if here == "worker":
        return there == "worker/start"
    if here.startswith("page/") and there.startswith("page/"):
        a, b = here.removeprefix("page/"), there.removeprefix("page/")
        if a in ALONE:
            return b in ALONE[a]
        return a in ORDER and b in ORDER and ORDER.index(a) < ORDER.index(b)
    return False


def wrong_way(src: Path) -> list[str]:
    """Each import that runs against the folders' order, as "file -> file"."""
    return sorted(
        f"{file} -> {target}"
        for file, targets in imports(src).items()
        for target in targets
        if not may_import(place(file), place(target))
    )


def unplaced(src: Path) -> list[str]:
    """Files of page/ outside the feature folders (main.js alone stands at its top)."""
    folders = set(ORDER) | set(ALONE)
    return sorted(
        p.relative_to(src).as_posix()
        for p in (src / "page").rglob("*")
        if p.is_file()
        and not (p.parent == src / "page" and p.name == "main.js")
        and not (p.parent.parent == src / "page" and p.parent.name in folders)
    )


def test_every_file_of_the_page_is_in_a_feature_folder():
    assert unplaced(SRC) == []
    folders = {p.name for p in (SRC / "page").iterdir() if p.is_dir()}
    assert folders == set(ORDER) | set(ALONE), "a folder of page/ the order does not name, or one gone"
    assert (SRC / "page" / "main.js").is_file() and (SRC / "worker" / "start").is_dir()


def test_main_js_stays_wiring_of_at_most_150_lines():
    """Issue 39: main.js finds the elements and wires the parts; a feature that grows there moves out."""
    lines = (SRC / "page" / "main.js").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"page/main.js is {len(lines)} lines: move a part's setup into its folder"
    functions = [line for line in lines if re.match(r"(async )?function ", line)]
    assert functions == ["async function main() {"], "main.js defines no function of its own beside main()"


def test_imports_run_one_way_down_the_folders():
    found = imports(SRC)
    assert "page/start/workerpool.js" in found["page/run/runner.js"], "the reader sees imports"
    assert "worker/start/startup.js" in found["worker/worker.js"]
    assert wrong_way(SRC) == [], "imports against the order of the folders"
    assert not any("page/main.js" in targets for targets in found.values()), "nothing imports main.js"


def places_reading(src: Path, pattern: str) -> list[str]:
    """Files of `src` (the page's code and boot.js beside it) whose code, comments aside, matches `pattern`."""
    paths = sorted(src.rglob("*.js")) + [src.parent / "boot.js"]
    out = []
    for path in paths:
        code = "\n".join(line.split("//")[0] for line in path.read_text(encoding="utf-8").splitlines())
        if re.search(pattern, re.sub(r"/\*.*?\*/", "", code, flags=re.S)):
            out.append(path.relative_to(src.parent).as_posix())
    return out


def test_what_this_visit_is_is_read_in_one_module_and_no_global_carries_the_start():
    # cross-origin isolation: read in shared/gaps.js alone (the worker asks it too); the page's visit.js
    # takes `isolated` from there, and the rest of the page is handed the visit
    assert places_reading(SRC, r"\bcrossOriginIsolated\b") == ["src/shared/gaps.js"]
    assert places_reading(SRC, r"\bnoSharedMemory\(\) === null") == ["src/page/start/visit.js"]
    # the service worker's controller: read for the visit only there; settings.js only talks to it (its probe)
    assert places_reading(SRC, r"serviceWorker\.controller") == [
        "src/page/model/settings.js",
        "src/page/start/visit.js",
    ]
    assert places_reading(SRC, r"\b(self|window|globalThis)\.looplab|\blooplab[A-Z]\w*") == []
    assert places_reading(SRC, r"\bhandoff\.js") == ["src/page/start/early.js", "src/page/start/prestart.js"]


def test_the_checks_panel_has_one_writer():
    # found once (panels.js), written and read by ChecksPanel alone (checks.js)
    assert places_reading(SRC, r'byTest\("checks"\)|"\[data-testid=.?checks') == ["src/page/panels/panels.js"]
    assert places_reading(SRC, r"checks\.dataset|\.check-(fail|pass|name)\b|class ChecksPanel") == [
        "src/page/panels/checks.js"
    ]


def test_an_import_against_the_order_is_found(tmp_path):
    files = {
        "page/main.js": 'import { a } from "./run/a.js";\n',
        "page/run/a.js": 'import { b } from "../ui/b.js";\nexport const a = 1;\n',
        "page/ui/b.js": 'export const b = () => import("../run/a.js");\n',
        "page/chat/c.js": '/** @param {import("../lesson/d.js").D} d */\nexport function c(d) {}\n',
        "page/lesson/d.js": 'export { w } from "../../worker/w.js";\n',
        "page/stray.js": "",
        "worker/w.js": 'import { s } from "./start/s.js";\nimport "../shared/p.js";\n',
        "worker/start/s.js": 'import { w } from "../w.js";\n',
        "shared/p.js": 'import "../page/ui/b.js";\n',
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert wrong_way(tmp_path) == [
        "page/chat/c.js -> page/lesson/d.js",
        "page/lesson/d.js -> worker/w.js",
        "page/ui/b.js -> page/run/a.js",
        "shared/p.js -> page/ui/b.js",
        "worker/start/s.js -> worker/w.js",
    ]
    assert unplaced(tmp_path) == ["page/stray.js"]
