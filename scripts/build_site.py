"""Build the static site into web/dist: a plain folder any static host can serve.

    python scripts/build_site.py                      # -> web/dist, lessons from lessons/
    python scripts/build_site.py --out DIR --lessons lessons --lessons tests/e2e/fixtures

What lands in the output folder:

    index.html, boot.js, app.js, chunks/, worker-<hash>.js, sw.js    the page (CodeMirror in chunks/), its worker and
                                                     service worker (esbuild)
    styles/
    localengine.js, wllama/<version>/wllama.wasm     the local model's engine (@wllama/wllama and its
                                                     wasm): served, loaded only in local mode, not
                                                     precached (lazy, like the "openai" group)
    pyodide/<version>/                               Pyodide's core files from node_modules/pyodide
                                                     (immutable: the version is in the path)
    py/pyodide-lock-<hash>.json                      the site's own lock file: only the wheels it
    py/*.whl                                         serves (looplab built from py/, micropip, the
                                                     "openai" and "test" groups, and httpx2_jsfetch
                                                     built from py-extra/), each with its sha256 and
                                                     its dependencies read from the wheel's metadata
    lessons/index.json, lessons/NN-slug.{py,json}     each lesson as written (wrong answers left out)
                                                     and as parsed cells; the index gives each
                                                     lesson its chapter (CHAPTERS), its place on
                                                     the core path and its time estimate, and the
                                                     core path's and the course's totals
    py/snapshot-<hash>.bin.gz                        a memory snapshot of Python with looplab and every
                                                     lesson's imports imported (scripts/snapshot.py)
    models.json                                      the local models' catalog (web/models.md)
    build.json                                       version, file sizes (for the loading bar), the
                                                     snapshot's facts, the names of the files above
    _headers                                         Cache-Control for static hosts that read it

<hash>: the file's own bytes (scripts/immutable.py), so what the worker loads is served
`immutable` and never asked for again; build.json gives the names to the page and the worker.
    bench/bare.html                                  the bare Pyodide reference page for bench/
    bench/wllama.html, bench/wllama.js               the bare wllama page for bench/local_model.py

The "openai" group (the SDK and its dependencies, ~5 MB) and the "test" group (pytest and
hypothesis with theirs, ~2.5 MB; the same pins tests/pyodide runs on) are served but neither
loaded at start nor precached: the worker loads one when a run needs it (`import pytest` in a
lesson's code brings pytest, iniconfig, packaging, pluggy and pygments, not hypothesis), and the
service worker keeps it once fetched (see web/sw.js, LAZY).

Uses the standard library, `packaging` (requirements-test.txt: the wheels' environment markers),
node_modules (npm ci) and .cache/wheels (scripts/wheels.py site openai test); wheels are written by
scripts/wheelfile.py.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from wheelfile import canonical, sha256_file, write_wheel

import immutable
import snapshot

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
MODEL_CATALOG = "models.json"  # web/models.json, copied as it is; build.json names it (modelCatalog)
NODE = ROOT / "node_modules"
WHEELS = ROOT / ".cache" / "wheels"
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
SITE_GROUPS = ("site", "openai", "test")  # wheel groups the site serves, when wheels.lock.json has them
LAZY_GROUPS = ("openai", "test")  # served, loaded only when a run needs them, not precached
PY_EXTRA = ROOT / "py-extra"  # our own source for wheels PyPI has no usable build of (httpx2_jsfetch)
# The Pyodide the site runs, for the environment markers of the wheels' Requires-Dist (the
# Python version and the Emscripten release come from Pyodide's lock file, see `target`).
TARGET = {
    "sys_platform": "emscripten",
    "platform_system": "Emscripten",
    "os_name": "posix",
    "platform_machine": "wasm32",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "platform_version": "",
}

sys.path.insert(0, str(ROOT / "py"))
import looplab
import wrong
from looplab._course import corepath, course, estimate, lessonfile
from looplab._course import lesson as lesson_format  # the page shows cells exactly as CPython parses them


class BuildError(Exception):
    """Something the build needs is missing; the message says how to get it."""


# --- the looplab wheel -------------------------------------------------------------------------


def project_meta() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def build_looplab_wheel(dest: Path) -> Path:
    """A py3-none-any wheel of py/looplab, written by hand (no build backend, no network)."""
    meta = project_meta()
    package = ROOT / "py" / meta["name"]
    files = {path.relative_to(ROOT / "py").as_posix(): path.read_bytes() for path in sorted(package.rglob("*.py"))}
    return write_wheel(
        dest,
        meta["name"],
        looplab.__version__,
        files,
        summary=meta.get("description", ""),
        requires_python=meta.get("requires-python", ""),
        generator="looplab build_site.py",
    )


# --- Pyodide and the site's lock file ----------------------------------------------------------


def wheel_imports(path: Path) -> list[str]:
    """The top-level import names a wheel installs (its packages and modules)."""
    names = set()
    with zipfile.ZipFile(path) as zf:
        for item in zf.namelist():
            top = item.split("/")[0]
            if top.endswith((".dist-info", ".data")):
                continue
            if "/" in item:
                names.add(top)
            elif item.endswith(".py"):
                names.add(item[:-3])
    return sorted(names)


def target(info: dict) -> dict:
    """The marker environment of the site's Pyodide, from its lock file's `info`
    ({"python": "3.14.2", "platform": "emscripten_5_0_3", ...})."""
    python = info["python"]
    release = info.get("platform", "").removeprefix("emscripten_").replace("_", ".")
    return {
        **TARGET,
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "implementation_version": python,
        "platform_release": release,
    }


def marker_holds(requirement: Requirement, environment: dict) -> bool:
    """Whether a requirement applies on the site's Pyodide (PEP 508, evaluated by `packaging`);
    one that needs an extra does not: the site installs no extras."""
    return requirement.marker is None or requirement.marker.evaluate({**environment, "extra": ""})


def wheel_requires(path: Path, environment: dict) -> list[str]:
    """The canonical names of the distributions a wheel needs on the site's Pyodide."""
    with zipfile.ZipFile(path) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        metadata = zf.read(name).decode("utf-8")
    needs = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        try:
            requirement = Requirement(line.split(":", 1)[1].strip())
            holds = marker_holds(requirement, environment)
        except (InvalidRequirement, InvalidMarker, UndefinedComparison, UndefinedEnvironmentName) as error:
            raise BuildError(f"{path.name}: cannot read {line!r}: {error}") from error
        if holds:
            needs.append(canonical(requirement.name))
    return needs


def build_extra_wheels(dest: Path) -> list[tuple[dict, Path]]:
    """Our own wheels from py-extra/ (reproducible bytes), as (entry, path) like the pinned ones."""
    spec = importlib.util.spec_from_file_location("py_extra_build", PY_EXTRA / "build.py")
    extra = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extra)
    out = []
    for package, version in extra.PACKAGES.items():
        path = extra.build(package, version, dest)
        out.append(
            (
                {
                    "name": canonical(package),
                    "version": version,
                    "filename": path.name,
                    "sha256": sha256_file(path),
                    "group": "openai",
                },
                path,
            )
        )
    return out


def site_wheels() -> list[tuple[dict, Path]]:
    """The pinned wheels the site serves, checked against their sha256."""
    lock_path = ROOT / "wheels.lock.json"
    if not lock_path.exists():
        raise BuildError("wheels.lock.json is missing (it pins micropip and the other wheels the site serves)")
    groups = json.loads(lock_path.read_text())["groups"]
    chosen = []
    for group in SITE_GROUPS:
        for entry in groups.get(group, []):
            path = WHEELS / entry["filename"]
            if not path.exists():
                raise BuildError(f"{path.relative_to(ROOT)} is missing: run `python scripts/wheels.py {group}`")
            if sha256_file(path) != entry["sha256"]:
                raise BuildError(
                    f"{path.name} does not match its sha256 in wheels.lock.json: "
                    f"run `python scripts/wheels.py {group}` again"
                )
            chosen.append(({**entry, "group": group}, path))
    return chosen


def copy_pyodide(out: Path) -> tuple[str, Path]:
    package = json.loads((NODE / "pyodide" / "package.json").read_text())
    version = package["version"]
    core = out / "pyodide" / version
    core.mkdir(parents=True)
    for name in PYODIDE_FILES:
        source = NODE / "pyodide" / name
        if not source.exists():
            raise BuildError(f"{source.relative_to(ROOT)} is missing: run `npm ci`")
        shutil.copy2(source, core / name)
    return version, core


def write_lock(out: Path, wheels: list[tuple[dict, Path]], looplab_wheel: Path) -> dict:
    """The site's own pyodide-lock.json: Pyodide's `info`, and only the packages the site serves.

    Each package's `depends` comes from its own wheel's Requires-Dist, evaluated for this
    Pyodide (httpx2 needs httpx2-jsfetch on emscripten and not anyio), so loadPackage("openai")
    brings exactly the wheels the SDK imports, and nothing from anywhere else.
    """
    upstream = json.loads((NODE / "pyodide" / "pyodide-lock.json").read_text())
    environment = target(upstream["info"])
    py_dir = out / "py"
    served = {canonical(e["name"]) for e, _ in wheels}
    packages = {}
    for entry, path in wheels:
        if path.parent != py_dir:
            shutil.copy2(path, py_dir / path.name)
        name = canonical(entry["name"])
        missing = [d for d in wheel_requires(path, environment) if d not in served]
        if missing:
            raise BuildError(
                f"{path.name} needs {', '.join(missing)} on Pyodide, which the site does not serve: "
                f"add it to the {entry['group']!r} group of wheels.lock.json"
            )
        packages[name] = {
            "name": name,
            "version": entry["version"],
            "file_name": path.name,
            "install_dir": "site",
            "sha256": entry["sha256"],
            "package_type": "package",
            "imports": wheel_imports(path),
            "depends": sorted(set(wheel_requires(path, environment))),
            "unvendored_tests": False,
        }
    break_cycles(packages)
    meta = project_meta()
    packages[meta["name"]] = {
        "name": meta["name"],
        "version": looplab.__version__,
        "file_name": looplab_wheel.name,
        "install_dir": "site",
        "sha256": sha256_file(looplab_wheel),
        "package_type": "package",
        "imports": ["looplab"],
        "depends": [],
        "unvendored_tests": False,
    }
    lock = {"info": upstream["info"], "packages": dict(sorted(packages.items()))}
    (py_dir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n")
    return lock


def break_cycles(packages: dict) -> None:
    """Drop the `depends` edges that close a cycle (httpx2 -> httpx2-jsfetch -> httpx2).

    Pyodide's loadPackage installs a package only after its dependencies are installed, so a
    cycle would wait forever. Installing is only unpacking (imports come later), so the order
    inside a cycle does not matter; loadPackage still brings every package of it.
    """
    state: dict[str, str] = {}

    def visit(name: str) -> None:
        state[name] = "open"
        for dep in list(packages[name]["depends"]):
            if state.get(dep) == "open":
                packages[name]["depends"].remove(dep)
            elif dep not in state:
                visit(dep)
        state[name] = "done"

    for name in sorted(packages):
        if name not in state:
            visit(name)


# --- lessons -----------------------------------------------------------------------------------


# The course's chapters: (first lesson, last lesson, title), by the lesson's two-digit number
# (01b is in chapter 1). A lesson outside them (the e2e fixtures, 90+) is listed under no chapter.
CHAPTERS = [
    (1, 16, "Chapter 1 · An agent from scratch"),
    (17, 24, "Chapter 2 · Making it hold up"),
    (25, 27, "Chapter 3 · Agents at work"),
]


def chapter_of(lesson_id: str) -> dict | None:
    """The chapter a lesson belongs to, as the lesson list shows it: {"number", "title"}, or None."""
    number = int(lesson_id[:2]) if lesson_id[:2].isdigit() else -1
    return next(
        (
            {"number": n, "title": title}
            for n, (first, last, title) in enumerate(CHAPTERS, 1)
            if first <= number <= last
        ),
        None,
    )


def lesson_cell(cell, path: Path) -> dict:
    """A cell as the page reads it; a predict cell carries its question, choices and answer parsed."""
    out = {"kind": cell.kind, "role": cell.role, "tags": cell.tags, "source": cell.source, "editable": cell.editable}
    if cell.role == "predict":
        try:
            out["prediction"] = dataclasses.asdict(lesson_format.read_prediction(cell.source))
        except ValueError as exc:
            raise SystemExit(f"{path.name}: {exc}") from None
    return out


def copy_lessons(out: Path, folders: list[Path]) -> list[dict]:
    """Each lesson as written (.py) and as parsed cells (.json), plus an index."""
    dest = out / "lessons"
    dest.mkdir()
    index, places = [], {}
    for folder in folders:
        for path in course.lesson_files(folder):
            text = wrong.without_wrong(path.read_text(encoding="utf-8"))  # wrong answers are the tests'
            cells = lesson_format.parse(text)
            slug = path.stem
            (dest / path.name).write_text(text, encoding="utf-8")
            try:
                place = places[course.lesson_id(path)] = corepath.place_of(text)
            except ValueError as exc:
                raise SystemExit(f"{path.name}: {exc}") from None
            parsed = {
                "slug": slug,
                "file": path.name,
                "title": lessonfile.title(cells, slug),
                "cells": [lesson_cell(c, path) for c in cells if c.role != "wrong"],
            }  # never shown
            (dest / f"{slug}.json").write_text(json.dumps(parsed, ensure_ascii=False))
            index.append(
                {
                    "slug": slug,
                    "number": course.lesson_id(path),
                    "title": parsed["title"],
                    "chapter": chapter_of(course.lesson_id(path)),
                    "file": path.name,
                    "exercise": any(c.role == "exercise" for c in cells),
                    "exercises": sum(c.role == "exercise" for c in cells),
                    "checks": len(lesson_format.check_names(cells)),
                    "hash": hashlib.sha256(text.encode()).hexdigest()[:16],
                    "minutes": estimate.estimate(cells).minutes,  # by the estimate's rule (estimate.py)
                    "path": place.as_json() if place else None,  # core or a deepening (corepath.py)
                }
            )
    index_file = {
        "format": course.LESSON_FORMAT,  # the page refuses another format
        "estimate": {"rule": estimate.RULE, **corepath.totals(places)},
        "lessons": index,
    }
    (dest / "index.json").write_text(json.dumps(index_file, indent=1, ensure_ascii=False) + "\n")
    return index


# --- the local model's engine --------------------------------------------------------------------

WLLAMA = NODE / "@wllama" / "wllama"
WLLAMA_COMPAT = NODE / "@wllama" / "wllama-compat"  # the build for engines without JSPI or Memory64 (WebKit)


def copy_wllama(out: Path) -> list[str]:
    """wllama's wasm under wllama/<version>/ (the path localengine.js asks for) and its compat build
    under wllama/<version>/compat/, both from the site, never wllama's CDN; returns the served files
    that are lazy (loaded only in local mode)."""
    versions = {}
    for package in (WLLAMA, WLLAMA_COMPAT):
        if not (package / "package.json").exists():
            raise BuildError(f"node_modules/{package.relative_to(NODE)} is missing: run `npm ci`")
        versions[package] = json.loads((package / "package.json").read_text())["version"]
    version = versions[WLLAMA]
    if versions[WLLAMA_COMPAT] != version:
        raise BuildError(
            f"@wllama/wllama-compat {versions[WLLAMA_COMPAT]} is not @wllama/wllama {version}: pin both alike"
        )
    folder = out / "wllama" / version
    (folder / "compat").mkdir(parents=True)
    shutil.copy2(WLLAMA / "esm" / "wasm" / "wllama.wasm", folder / "wllama.wasm")
    for name in ("wllama.wasm", "wllama.js"):
        shutil.copy2(WLLAMA_COMPAT / "wasm" / name, folder / "compat" / name)
    served = [folder / "wllama.wasm", folder / "compat" / "wllama.wasm", folder / "compat" / "wllama.js"]
    return [path.relative_to(out).as_posix() for path in served] + ["localengine.js"]


# --- the front end -----------------------------------------------------------------------------


def esbuild(out: Path, entries: list[str], minify: bool, *options: str) -> dict:
    """Run esbuild on `entries` into `out`; returns its metafile (what each output holds)."""
    binary = NODE / ".bin" / "esbuild"
    if not binary.exists():
        raise BuildError("node_modules/.bin/esbuild is missing: run `npm ci`")
    meta = out / ".esbuild-meta.json"
    command = [
        str(binary),
        *entries,
        "--bundle",
        "--format=esm",
        f"--outdir={out}",
        "--target=es2022",
        "--log-level=warning",
        "--legal-comments=none",
        "--charset=utf8",
        f"--metafile={meta}",
        *options,
    ]
    if minify:
        command += ["--minify", "--sourcemap=linked"]
    subprocess.run(command, cwd=ROOT, check=True)
    info = json.loads(meta.read_text())
    meta.unlink()
    return info


def bundle(out: Path, minify: bool) -> tuple[list[str], list[str]]:
    """esbuild: the page (app.js, CodeMirror split off into chunks/ it imports once the prose is
    shown), the worker (worker.js, one file, its Python bridge inlined as text) and the local
    model's engine (localengine.js, one file), as ES modules.
    Returns (the chunks boot.js imports, lazily too; CodeMirror's chunks, as lazyeditor.js imports
    them), for index.html to preload after the first frame, in that order (write_page)."""
    # boot.js, the page's entry, starts Python's worker (early.js) and imports app.js after the
    # first frame; both in one build, so the modules they share are one instance (chunks/).
    page = esbuild(
        out,
        ["app=web/src/page/main.js", "boot=web/boot.js"],
        minify,
        "--splitting",
        "--chunk-names=chunks/[name]-[hash]",
    )
    esbuild(
        out,
        ["worker=web/src/worker/worker.js", "localengine=web/src/page/model/localengine.js"],
        minify,
        "--loader:.py=text",
    )  # localengine.js: by URL, in local mode
    outputs = page["outputs"]
    app = next(name for name, o in outputs.items() if o.get("entryPoint") == "web/src/page/main.js")
    boot = next(name for name, o in outputs.items() if o.get("entryPoint") == "web/boot.js")

    def imports(name: str, kind: str) -> list[str]:
        return [i["path"] for i in outputs[name].get("imports", []) if i["kind"] == kind and i["path"] in outputs]

    def statics(name: str) -> list[str]:
        return imports(name, "import-statement")

    def closure(names: list[str]) -> list[str]:  # these and what they import
        return [found for name in names for found in [name] + statics(name)]

    # boot's first: Python's worker starts from them; then boot.js's lazy imports (markdown-it and
    # DOMPurify, before the app); the app's (lazyeditor.js: CodeMirror a package at a time) apart
    first = list(dict.fromkeys(statics(boot) + closure([n for n in imports(boot, "dynamic-import") if n != app])))
    later = [name for name in dict.fromkeys(closure(imports(app, "dynamic-import"))) if name not in first]
    relative = lambda names: [(ROOT / n).resolve().relative_to(out.resolve()).as_posix() for n in names]  # noqa: E731 - metafile paths are from ROOT
    return relative(first), relative(later)


def python_startup(
    version: str, looplab_wheel: Path, snapshot_file: str | None = None, lock_file: str = "py/pyodide-lock.json"
) -> list[str]:
    """What the worker fetches before Python is ready, relative to the page (the .mjs files by import()):
    the site's memory snapshot when there is one (a restore has looplab already), else our wheel."""
    core = f"pyodide/{version}/"
    return [
        core + "pyodide.asm.wasm",
        core + "python_stdlib.zip",
        core + "pyodide.mjs",
        core + "pyodide.asm.mjs",
        lock_file,
        snapshot_file or f"py/{looplab_wheel.name}",
    ]


PRELOAD_MARK = (
    "<!-- preload: scripts/build_site.py puts the files the app starts from here (added after the first frame) -->"
)


def write_page(out: Path, first_lesson: str | None, chunks: list[str], later: list[str] = ()) -> None:
    """index.html with preload hints, in a <template> boot.js adds to the page after its first frame:
    the lesson files and the app's chunks are then fetched in parallel, instead of as each script
    gets to ask for it (`crossorigin` makes them CORS requests like the fetch() and import() that
    use them). Not from the first byte: each preload's response and compile is a task of the page's,
    and together they held the prerendered lesson's first paint back (app.js alone stays in <head>:
    one file, compiled off the main thread). Nothing only the worker uses is preloaded: a worker
    does not share the page's preloads, so each of those files was fetched twice on a first visit
    (issue 23: 21.4 MB before the first run, seven files twice). build.json is not preloaded:
    boot.js asks for it as it starts."""
    page = (WEB / "index.html").read_text()
    if PRELOAD_MARK not in page:
        raise BuildError(f"web/index.html lacks the line {PRELOAD_MARK}")
    fetches = ["lessons/index.json"] + ([f"lessons/{first_lesson}.json"] if first_lesson else [])
    links = [f'<link rel="preload" href="{path}" as="fetch" crossorigin>' for path in fetches]
    links += [f'<link rel="modulepreload" href="{path}">' for path in chunks]
    links += [f'<link rel="modulepreload" href="{path}" data-later>' for path in later]  # boot.js
    page = page.replace(PRELOAD_MARK, '<template data-role="later-preloads">' + "".join(links) + "</template>")
    page = inline_styles(page, out)
    page = inline_theme(page)
    page = page.replace("__LOOPLAB_VERSION__", looplab.__version__).replace(
        "__LESSON_FORMAT__", str(course.LESSON_FORMAT)
    )
    if first_lesson:
        page = prerender_lesson(page, out / "lessons" / f"{first_lesson}.json", first_lesson)
    (out / "index.html").write_text(page)


STYLESHEET = re.compile(r'<link rel="stylesheet" href="(styles/[\w.-]+\.css)">')


def inline_styles(page: str, out: Path) -> str:
    """The page's style sheets written into it (<style>; the policy allows inline styles): the
    prerendered lesson paints without waiting for a style sheet's round trip."""
    return STYLESHEET.sub(lambda m: f"<style>\n{(out / m.group(1)).read_text()}</style>", page)


LESSON_TEXT = '<article data-testid="lesson-text" class="lesson-text"></article>'


def prerender_lesson(page: str, lesson: Path, slug: str) -> str:
    """The first lesson's opening written into the page (scripts/prerender.mjs), so its prose is on
    screen at the first paint; <html data-prerendered> names it, for theme.js to hide it when the
    address asks for another lesson."""
    if LESSON_TEXT not in page or '<html lang="en">' not in page:
        raise BuildError(f'web/index.html lacks {LESSON_TEXT} or <html lang="en">')
    html = subprocess.run(
        ["node", str(ROOT / "scripts" / "prerender.mjs"), str(lesson)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    page = page.replace('<html lang="en">', f'<html lang="en" data-prerendered="{slug}">')
    return page.replace(LESSON_TEXT, LESSON_TEXT.replace("></", f'><div class="prerendered">{html}</div></'))


THEME_TAG = '<script src="theme.js"></script>'


def theme_script() -> str:
    """web/theme.js as the page inlines it (the CSP allows exactly this text by its hash)."""
    return "\n" + (WEB / "theme.js").read_text()


def inline_theme(page: str) -> str:
    """theme.js written into the page (it blocks the parser on purpose, and a round trip for it
    held the first paint back) and its hash added to the page's policy: an injected inline script
    still does not run."""
    if THEME_TAG not in page:
        raise BuildError(f"web/index.html lacks {THEME_TAG}")
    page = page.replace(THEME_TAG, f"<script>{theme_script()}</script>")
    return CSP_META.sub(lambda m: m[0].replace(m[1], page_policy()), page, count=1)


CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')


def page_policy(*inlined: str) -> str:
    """The Content-Security-Policy of index.html's <meta> tag, with the hashes of the inlined theme
    script and of `inlined` (the prestart script) in script-src: the worker gets it as a header."""
    match = CSP_META.search((WEB / "index.html").read_text())
    if not match:
        raise BuildError('web/index.html has no <meta http-equiv="Content-Security-Policy"> tag')
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
        for text in (theme_script(), *inlined)
    )
    return match[1].replace("script-src 'self'", f"script-src 'self' {hashes}", 1)


PRESTART_TAG = '<script src="prestart.js"></script>'
PRESTART_NAMES = (
    "worker",
    "version",
    "indexURL",
    "lockFileURL",
    "prefetch",
    "wheel",
    "startupBytes",
    "heapMax",
    "snapshot",
)


def inline_prestart(out: Path, info: dict, minify: bool) -> str:
    """web/src/page/start/prestart.js bundled with this build's names and written into index.html's <head>
    (after the version is taken: the names include it), its hash added to the page's policy: Python's
    first worker starts from the page's first script. Returns the script's text."""
    binary = NODE / ".bin" / "esbuild"
    names = {key: info[key] for key in PRESTART_NAMES}
    if names["snapshot"]:
        names["snapshot"] = {key: names["snapshot"][key] for key in ("file", "rawBytes", "startupBytes")}
    command = [
        str(binary),
        "web/src/page/start/prestart.js",
        "--bundle",
        "--format=iife",
        "--target=es2022",
        "--log-level=warning",
        "--legal-comments=none",
        "--charset=utf8",
        f"--define:PRESTART={json.dumps(names)}",
    ]
    code = subprocess.run(
        command + (["--minify"] if minify else []), cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    page = (out / "index.html").read_text()
    if PRESTART_TAG not in page:
        raise BuildError(f"web/index.html lacks {PRESTART_TAG}")
    page = page.replace(PRESTART_TAG, f"<script>{code}</script>")
    (out / "index.html").write_text(CSP_META.sub(lambda m: m[0].replace(m[1], page_policy(code)), page, count=1))
    return code


def worker_policy() -> str:
    """The Python worker's Content-Security-Policy: the page's, but Python may connect only to the
    site (connect-src 'self', last, so that looplab/_course/serve.py and sw.js append the live endpoint's
    origin from worker.js?connect=<origin>) and start no worker of its own (worker-src 'none')."""
    kept = [
        d.strip() for d in page_policy().split(";") if d.strip() and d.split()[0] not in ("connect-src", "worker-src")
    ]
    return "; ".join([*kept, "worker-src 'none'", "connect-src 'self'"])


def write_service_worker(out: Path, version: str, lazy: list[str], worker: str) -> list[str]:
    """sw.js with this build's version, the files to precache, the lazy ones (cached on first use)
    and the worker's Content-Security-Policy (for the worker script it serves)."""
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and not p.name.endswith(".map"))
    precache = ["./"] + [
        f for f in files if f not in ("sw.js", immutable.HEADERS) and not f.startswith("bench/") and f not in lazy
    ]
    template = (WEB / "sw.js").read_text()
    text = (
        template.replace("__VERSION__", version)
        .replace('["__PRECACHE__"]', json.dumps(precache, indent=1))
        .replace('["__LAZY__"]', json.dumps(lazy, indent=1))
        .replace('"__CSP__"', json.dumps(worker_policy()))
        .replace('"__WORKER__"', json.dumps(worker))
    )
    (out / "sw.js").write_text(text)
    return precache


def build(
    out: Path,
    lesson_dirs: list[Path],
    minify: bool = True,
    with_snapshot: bool = True,
    snapshot_with: list[str] = (),
    snapshot_minimal: bool = False,
) -> dict:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "py").mkdir()
    version, core = copy_pyodide(out)
    looplab_wheel = build_looplab_wheel(out / "py")
    wheels = site_wheels() + build_extra_wheels(out / "py")
    lock = write_lock(out, wheels, looplab_wheel)
    lazy = sorted(f"py/{path.name}" for entry, path in wheels if entry["group"] in LAZY_GROUPS)
    lazy = sorted(lazy + copy_wllama(out))
    lessons = copy_lessons(out, lesson_dirs)
    parsed = [json.loads((out / "lessons" / f"{item['slug']}.json").read_text()) for item in lessons]
    memory = None
    try:
        extras = (
            snapshot.with_extras(lock, snapshot_with) if snapshot_with else []
        )  # the snapshot's variants (bench/snapshot_size.py)
        preload = snapshot.modules_to_import(
            parsed, ROOT / "py" / project_meta()["name"], lock, extras, snapshot_minimal
        )
        heap_limit = snapshot.heap_limit((core / "pyodide.asm.wasm").read_bytes())
        heap_max = snapshot.heap_max((core / "pyodide.asm.wasm").read_bytes())
        if with_snapshot:
            first = f"lessons/{lessons[0]['slug']}.json" if lessons else None
            memory = snapshot.build(out, core, looplab_wheel, preload, heap_max, first, extras)
    except snapshot.SnapshotError as error:
        raise BuildError(f"the memory snapshot: {error}") from error
    chunks, later = bundle(out, minify)
    # What the worker loads, named by its bytes (scripts/immutable.py): cached for good, never revalidated.
    lock_file = immutable.content_name(out, "py/pyodide-lock.json")
    worker_file = immutable.content_name(out, "worker.js")
    if memory:
        memory["file"] = immutable.content_name(out, memory["file"])
    forever = [
        f"pyodide/{version}/",
        "wllama/",
        "chunks/",
        lock_file,
        worker_file,
        *([memory["file"]] if memory else []),
        *(f"py/{path.name}" for entry, path in wheels if entry.get("group") in SITE_GROUPS and path.parent == WHEELS),
    ]  # pinned by sha256 (not ours: their version is their bytes)
    shutil.copytree(WEB / "styles", out / "styles")
    for name in ("icon.svg", "manifest.webmanifest", MODEL_CATALOG):
        if (WEB / name).exists():
            shutil.copy2(WEB / name, out / name)
    startup = python_startup(version, looplab_wheel, memory["file"] if memory else None, lock_file)
    write_page(out, lessons[0]["slug"] if lessons else None, chunks, later)
    (out / "bench").mkdir()
    bare = (WEB / "bench" / "bare.html").read_text().replace("__PYODIDE__", f"../pyodide/{version}/")
    bare = bare.replace("../py/pyodide-lock.json", f"../{lock_file}")
    (out / "bench" / "bare.html").write_text(bare)
    wllama_version = json.loads((WLLAMA / "package.json").read_text())["version"]
    shutil.copy2(WLLAMA / "esm" / "index.js", out / "bench" / "wllama.js")
    (out / "bench" / "wllama.html").write_text(
        (WEB / "bench" / "wllama.html")
        .read_text()
        .replace("__WLLAMA_WASM__", f"../wllama/{wllama_version}/wllama.wasm")
    )

    # The build's version: a hash of everything served, so any change gives a new cache.
    digest = hashlib.sha256(
        (WEB / "sw.js").read_bytes() + (WEB / "src" / "page" / "start" / "prestart.js").read_bytes()
    )
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode())
        digest.update(path.read_bytes())
    build_version = digest.hexdigest()[:12]
    sizes = {"/" + p.relative_to(out).as_posix(): p.stat().st_size for p in out.rglob("*") if p.is_file()}
    # What the worker fetches before Python is ready (the .mjs files come by import(), uncounted):
    # a restore fetches the snapshot instead of the wheel. Paths are relative to the page, so the
    # folder can be served under any prefix.
    counted = [p for p in startup if not p.endswith(".mjs")]
    if memory:
        memory["startupBytes"] = sum(sizes["/" + p] for p in counted)
    info = {
        "version": build_version,
        "looplab": looplab.__version__,
        "lessonFormat": course.LESSON_FORMAT,
        "pyodide": version,
        "indexURL": f"pyodide/{version}/",
        "lockFileURL": lock_file,
        "worker": worker_file,
        "immutable": forever,
        "packages": sorted(lock["packages"]),
        "csp": page_policy(),
        "workerCsp": worker_policy(),
        "startupBytes": sum(
            sizes["/" + p]
            for p in python_startup(version, looplab_wheel, lock_file=lock_file)
            if not p.endswith(".mjs")
        ),
        "lessons": len(lessons),
        # fetched by the worker from its first moment, beside the wasm and the snapshot (the
        # wheel only for a normal load: a restore has looplab already)
        "prefetch": [p for p in startup if p.endswith((".zip", ".json"))],
        "wheel": f"py/{looplab_wheel.name}",
        # the memory Python starts with, the most it can grow to (the worker grows it to hold
        # a bigger snapshot's heap before the restore), the site's snapshot or null
        "heapLimit": heap_limit,
        "heapMax": heap_max,
        "snapshot": memory,
        # the local models a learner can download (web/models.md); a test or a self-hoster may
        # point this at another catalog, on this host or another
        "modelCatalog": MODEL_CATALOG,
    }
    info["csp"] = page_policy(inline_prestart(out, info, minify))
    (out / "build.json").write_text(json.dumps(info, indent=1) + "\n")
    immutable.write_headers(out, forever)
    precache = write_service_worker(out, build_version, lazy, worker_file)
    info["precache"] = len(precache)
    info["imported_ahead"] = len(preload)  # the modules in the snapshot (a normal load imports them as runs need them)
    info["bytes"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=WEB / "dist")
    parser.add_argument(
        "--lessons", type=Path, action="append", help="a folder of NN-slug.py lessons (repeatable; default: lessons)"
    )
    parser.add_argument("--no-minify", action="store_true")
    parser.add_argument(
        "--no-snapshot", action="store_true", help="ship no memory snapshot (the page loads Python normally)"
    )
    parser.add_argument(
        "--snapshot-with",
        default="",
        metavar="PACKAGES",
        help="lazy extras loaded and imported in the snapshot, e.g. pytest (pure Python only)",
    )
    parser.add_argument(
        "--snapshot-minimal",
        action="store_true",
        help="a smaller snapshot: only what the worker's bridge imports (not every lesson's imports)",
    )
    args = parser.parse_args(argv)
    try:
        info = build(
            args.out.resolve(),
            args.lessons or [ROOT / "lessons"],
            minify=not args.no_minify,
            with_snapshot=not args.no_snapshot,
            snapshot_minimal=args.snapshot_minimal,
            snapshot_with=[name.strip() for name in args.snapshot_with.split(",") if name.strip()],
        )
    except BuildError as error:
        print(f"build_site: error: {error}", file=sys.stderr)
        return 1
    print(
        f"build_site: {args.out} version {info['version']}: {info['lessons']} lessons, "
        f"packages {', '.join(info['packages'])}, {info['precache']} files precached, "
        f"{info['bytes'] / 1e6:.1f} MB"
    )
    if info["snapshot"]:
        memory = info["snapshot"]
        print(
            f"build_site: snapshot {memory['file']}: {memory['bytes'] / 1e6:.1f} MB gzipped "
            f"({memory['rawBytes'] / 2**20:.1f} MiB, heap {memory['heapBytes'] / 2**20:.1f} MiB, Python starts with "
            f"{info['heapLimit'] / 2**20:.0f}), {info['imported_ahead']} modules imported ahead"
            + (f", packages in it: {', '.join(memory['packages'])}" if memory.get("packages") else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
