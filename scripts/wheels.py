"""Fetch the pinned Pyodide wheels of wheels.lock.json into .cache/wheels, verifying sha256.

Pyodide (Python 3.14, Emscripten) cannot install from PyPI at test or page time: every wheel
it loads is fetched here beforehand, from PyPI through pip, and pinned by name, version, file
name and sha256 in `wheels.lock.json` (repo root), grouped by use:

    test   pytest, hypothesis and their runtime deps (tests/pyodide/run.mjs)
    site   micropip, for the web site

Usage (from the repo root, with any Python that has pip, e.g. .venv/bin/python):

    python scripts/wheels.py test [site ...]      # fetch groups; files already there with the
                                                  # right hash are skipped; a wrong hash fails
    python scripts/wheels.py --update test        # re-download the group's pins, rewrite entries
    python scripts/wheels.py --update GROUP REQ... [-c CONSTRAINTS] [--no-deps]
                                                  # (re)write GROUP from these requirements
    python scripts/wheels.py --paths test         # print the group's wheel paths, one a line

Adding a group (e.g. "openai"): run `--update openai openai==X.Y.Z -c requirements-test.txt`.
pip resolves the dependencies (use `--no-deps` to take exactly the requirements given) and the
lock gets one entry per downloaded wheel; review the list and commit wheels.lock.json. Every
download uses the Pyodide target (`--platform pyemscripten_2026_0_wasm32 --implementation cp
--python-version 3.14 --only-binary=:all:`), so compiled packages (pydantic_core, jiter) get
their Emscripten wheel and pure packages their `py3-none-any` one. Caveat: pip evaluates
environment markers such as `sys_platform == "emscripten"` against this machine, not the
target, so check a resolved group for a missing or extra dependency.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from wheelfile import canonical, sha256_file as sha256

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "wheels.lock.json"
DEST = ROOT / ".cache" / "wheels"
ABOUT = "Pinned wheels for Pyodide (Python 3.14), by group. Written by scripts/wheels.py --update; see its docstring."
TARGET = [
    "--only-binary=:all:",
    "--python-version", "3.14",
    "--implementation", "cp",
    "--platform", "pyemscripten_2026_0_wasm32",
]  # fmt: skip


class WheelError(Exception):
    """A download failed or a file does not match its pin."""


def parse_wheel_name(filename: str) -> tuple[str, str]:
    """(name, version) from a wheel file name."""
    parts = filename.removesuffix(".whl").split("-")
    if not filename.endswith(".whl") or len(parts) not in (5, 6):
        raise WheelError(f"not a wheel file name: {filename!r}")
    return canonical(parts[0]), parts[1]


def read_lock() -> dict:
    if not LOCK.exists():
        return {"about": ABOUT, "groups": {}}
    return json.loads(LOCK.read_text())


def write_lock(lock: dict) -> None:
    LOCK.write_text(json.dumps(lock, indent=2) + "\n")


def pip_download(requirements: list[str], into: Path, *, deps: bool, constraints: list[str] = ()) -> None:
    """Download wheels for the Pyodide target with pip; pip's output is shown only on failure."""
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(into), *TARGET]
    if not deps:
        command.append("--no-deps")
    for constraint in constraints:
        command += ["--constraint", constraint]
    done = subprocess.run(command + requirements, capture_output=True, text=True)
    if done.returncode != 0:
        raise WheelError(
            f"pip download {' '.join(requirements)} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}"
        )


def fetch(group: str, dest: Path = DEST) -> list[Path]:
    """Make every wheel of the group present in dest with its pinned hash; return their paths."""
    groups = read_lock()["groups"]
    if group not in groups:
        raise WheelError(f"no group {group!r} in {LOCK.name}; groups are {', '.join(sorted(groups))}")
    dest.mkdir(parents=True, exist_ok=True)
    paths, downloaded = [], 0
    for entry in groups[group]:
        path = dest / entry["filename"]
        paths.append(path)
        if path.exists() and sha256(path) == entry["sha256"]:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            pip_download([f"{entry['name']}=={entry['version']}"], Path(tmp), deps=False)
            got = Path(tmp) / entry["filename"]
            if not got.exists():
                found = ", ".join(p.name for p in Path(tmp).iterdir()) or "nothing"
                raise WheelError(f"{entry['name']}=={entry['version']}: expected {entry['filename']}, pip gave {found}")
            actual = sha256(got)
            if actual != entry["sha256"]:
                raise WheelError(
                    f"sha256 mismatch for {entry['filename']}:\n  locked   {entry['sha256']}\n"
                    f"  download {actual}\nThe file on the index changed or the lock is wrong; "
                    f"if the new file is trusted, run: scripts/wheels.py --update {group}"
                )
            shutil.move(got, path)
            downloaded += 1
    if downloaded:  # quiet when nothing changed, so `make` stays quiet
        print(f"wheels: {group}: {downloaded} of {len(paths)} downloaded into {dest.relative_to(ROOT)}")
    return paths


def update(group: str, requirements: list[str], *, deps: bool, constraints: list[str], dest: Path = DEST) -> None:
    """(Re)write the group's entries from what pip downloads for the requirements."""
    lock = read_lock()
    if not requirements:
        if group not in lock["groups"]:
            raise WheelError(f"group {group!r} is new: give its requirements, e.g. --update {group} NAME==VERSION")
        requirements = [f"{e['name']}=={e['version']}" for e in lock["groups"][group]]
        deps = False
    dest.mkdir(parents=True, exist_ok=True)
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        pip_download(requirements, Path(tmp), deps=deps, constraints=constraints)
        for wheel in sorted(Path(tmp).iterdir()):
            name, version = parse_wheel_name(wheel.name)
            entries.append({"name": name, "version": version, "filename": wheel.name, "sha256": sha256(wheel)})
            shutil.move(wheel, dest / wheel.name)
    lock["groups"][group] = sorted(entries, key=lambda e: e["name"])
    lock["groups"] = dict(sorted(lock["groups"].items()))
    write_lock(lock)
    for e in lock["groups"][group]:
        print(f"  {e['name']}=={e['version']}  {e['filename']}")
    print(f"wheels: {group}: wrote {len(entries)} entries to {LOCK.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help="groups to fetch")
    parser.add_argument("--update", metavar="GROUP", help="(re)write GROUP; positional args are then requirements")
    parser.add_argument("-c", "--constraint", action="append", default=[], help="pip constraints file (--update)")
    parser.add_argument("--no-deps", action="store_true", help="take exactly the requirements given (--update)")
    parser.add_argument("--paths", metavar="GROUP", help="print the group's wheel paths, one a line")
    args = parser.parse_args(argv)
    try:
        if args.update:
            update(args.update, args.groups, deps=not args.no_deps, constraints=args.constraint)
        elif args.paths:
            groups = read_lock()["groups"]
            if args.paths not in groups:
                raise WheelError(f"no group {args.paths!r} in {LOCK.name}")
            print("\n".join(str(DEST / e["filename"]) for e in groups[args.paths]))
        elif args.groups:
            for group in args.groups:
                fetch(group)
        else:
            parser.error("name a group to fetch, or use --update GROUP / --paths GROUP")
    except WheelError as error:
        print(f"wheels: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
