"""The site's memory snapshot: a ready interpreter (looplab and every lesson's imports imported),
made by Node.js from the exact Pyodide files the site serves, shipped gzipped.

    snapshot.modules_to_import(lessons, package, lock)   what it imports ahead
    snapshot.build(out, core, wheel, modules, most, lesson)  ->  out/py/snapshot.bin.gz, its facts

Variants (build_site.py --snapshot-with pytest, --snapshot-minimal; bench/snapshot_size.py weighs
them): lazy extras loaded and imported ahead (pure-Python packages only: a snapshot holds Python's
heap, not the code of a loaded dynamic library), or only what the worker's bridge needs.

The worker restores it instead of starting Python (web/src/worker/start/snapshot.js), and loads normally when
it is missing, corrupt or refused. Pyodide's snapshots are a private API of the pinned version:
a snapshot restores only into the identical build (its build id, checked here against the served
pyodide.mjs), into a memory grown to hold its heap before the restore (the worker and
scripts/make_snapshot.mjs, which also restores it and runs a lesson before the build goes on).

Reproducible: the same sources give the same bytes (a fixed clock, random bytes from a seed of the
inputs, gzip with no name or time).
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BRIDGE = ROOT / "web" / "src" / "worker" / "bridge.py"
FILE = "py/snapshot.bin.gz"
# Never imported ahead: modules that exist only once the page has registered them (JS objects
# cannot be in a snapshot); nor any package's __main__ (importing it would start its command line).
NOT_AHEAD = {"js", "pyodide_js", "looplab_page", "looplab_transport"}
TERMINAL_ONLY = (
    "cli.py",
    "serve.py",
    "lessonfolder.py",
    "notebook.py",
    "mutants.py",
)  # the command line's own modules (serve.py: a socket server; mutants.py: forks, POSIX `resource`): the page never imports them


class SnapshotError(Exception):
    """The snapshot could not be made or would not restore; the message says why."""


def imports_of(source: str) -> set[str]:
    """The absolute module names a piece of Python imports (anywhere in it, also inside functions)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()  # a learner's exercise may be unfinished: it imports nothing ahead
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def modules_to_import(
    lessons: list[dict], package: Path, lock: dict, extras: list[str] = (), minimal: bool = False
) -> list[str]:
    """What the snapshot imports: every module of looplab, what they and the lessons' code cells
    import, minus the lazy extras (a package of the lock other than looplab: the openai SDK and
    its dependencies load only when a run needs them) but those in `extras` (packages of the lock,
    with_extras) and their import names. `minimal`: only what the worker's bridge imports."""
    modules = [path for path in package.rglob("*.py") if path.name not in TERMINAL_ONLY]
    names = (
        {".".join(path.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__") for path in modules}
        if not minimal
        else {package.name}
    )
    for path in modules if not minimal else []:
        names |= imports_of(path.read_text(encoding="utf-8"))
    names |= imports_of(BRIDGE.read_text(encoding="utf-8"))
    for lesson in lessons if not minimal else []:
        for cell in lesson["cells"]:
            if cell["kind"] == "code":
                names |= imports_of(cell["source"])
    names |= {name for key in extras for name in lock["packages"][key]["imports"]}
    lazy = {
        name
        for key, entry in lock["packages"].items()
        if key != package.name and key not in extras
        for name in entry["imports"]
    }
    return sorted(
        n for n in names if n not in NOT_AHEAD and n.split(".")[0] not in lazy and n.split(".")[-1] != "__main__"
    )


def with_extras(lock: dict, wanted: list[str]) -> list[str]:
    """The packages of the lock a snapshot must load for `wanted` (names of packages or of what
    they import: "pytest", "openai"), their dependencies included. Refused (SnapshotError) when
    one is unknown or holds compiled code: a dynamic library's code and function table live
    outside the heap a snapshot keeps (pyodide issue 6418), so it would not work after a restore."""
    packages = lock["packages"]
    by_import = {name: key for key, entry in packages.items() for name in entry["imports"]}
    todo = [by_import.get(name, name) for name in wanted]
    found: list[str] = []
    while todo:
        key = todo.pop()
        if key in found:
            continue
        if key not in packages:
            raise SnapshotError(f"{key!r} is no package of the site's lock (known: {', '.join(sorted(packages))})")
        found.append(key)
        todo += packages[key]["depends"]
    compiled = sorted(k for k in found if not packages[k]["file_name"].endswith("-none-any.whl"))
    if compiled:
        raise SnapshotError(
            f"{', '.join(wanted)} needs {', '.join(compiled)}, with compiled code (.so): "
            "a snapshot holds Python's heap, not a loaded library's code (pyodide issue 6418)"
        )
    return sorted(found)


def heap_limit(wasm: bytes) -> int:
    """The initial size in bytes of the memory pyodide.asm.wasm defines: a bigger snapshot's heap
    needs the memory grown before the restore ("offset is out of bounds" otherwise, pyodide issue
    6254; the worker and scripts/make_snapshot.mjs grow it, web/src/worker/start/snapshot.js growFor)."""
    return memory_limits(wasm)[0]


def heap_max(wasm: bytes) -> int:
    """The most bytes the memory of pyodide.asm.wasm can grow to: no snapshot's heap can be bigger."""
    return memory_limits(wasm)[1]


def memory_limits(wasm: bytes) -> tuple[int, int]:
    """(initial, maximum) size in bytes of the memory pyodide.asm.wasm defines (wasm32: 4 GiB when
    it declares no maximum)."""

    def leb(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = wasm[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, at

    if wasm[:4] != b"\0asm":
        raise SnapshotError("pyodide.asm.wasm is not a WebAssembly module")
    at = 8
    while at < len(wasm):
        section, size_at = wasm[at], at + 1
        size, at = leb(size_at)
        if section == 5:  # memory: a count, then limits {flags, initial pages[, maximum pages]}
            _count, at = leb(at)
            flags, at = leb(at)
            pages, at = leb(at)
            most = leb(at)[0] if flags & 1 else 65536
            return pages * 65536, most * 65536
        at += size
    raise SnapshotError("pyodide.asm.wasm defines no memory (is it imported? then this check needs updating)")


def build_id(pyodide_mjs: Path) -> str:
    """The build id of the served Pyodide (hash of pyodide.asm.mjs and .wasm, in pyodide.mjs)."""
    found = re.search(r'BUILD_ID:"([0-9a-f]{64})"', pyodide_mjs.read_text(encoding="utf-8"))
    if not found:
        raise SnapshotError(f"{pyodide_mjs} holds no BUILD_ID: is this the pinned Pyodide 314?")
    return found[1]


def snapshot_build_id(raw: bytes) -> str:
    """The build id a snapshot was made for: eight little-endian uint32 at bytes 16-48 (Pyodide's src/js/snapshot.ts)."""
    if len(raw) < 48 or struct.unpack_from("<I", raw)[0] != 0x706E7300:
        raise SnapshotError("the snapshot does not start with Pyodide's snapshot magic number")
    return "".join(f"{n:08x}" for n in struct.unpack_from("<8I", raw, 16))


def build(
    out: Path,
    core: Path,
    looplab_wheel: Path,
    modules: list[str],
    most: int,
    lesson: str | None,
    extras: list[str] = (),
) -> dict:
    """Make, check and write the snapshot; returns its facts for build.json."""
    node = shutil.which("node")
    if node is None:
        raise SnapshotError("node is missing: Node.js 20+ makes the snapshot")
    wanted_id = build_id(core / "pyodide.mjs")
    # Random bytes drawn while the snapshot is made (the hash secret, mimalloc's and the RNGs'
    # states) come from this seed: the same inputs give the same bytes. No secret is lost: a
    # snapshot is public anyway, and the hash secret is frozen in any snapshot (every dict of the
    # heap depends on it); the worker reseeds the RNGs after each restore.
    inputs = hashlib.sha256(
        wanted_id.encode() + looplab_wheel.read_bytes() + BRIDGE.read_bytes() + json.dumps(modules).encode()
    )
    with tempfile.TemporaryDirectory() as tmp:
        raw_path = Path(tmp) / "snapshot.bin"
        request = {
            "site": str(out),
            "indexURL": core.relative_to(out).as_posix(),
            "lockFile": "py/pyodide-lock.json",
            "wheel": str(looplab_wheel),
            "bridge": str(BRIDGE),
            "modules": modules,
            "extras": list(extras),
            "seed": inputs.hexdigest(),
            "heapMax": most,
            "lesson": lesson,
            "out": str(raw_path),
        }
        (Path(tmp) / "request.json").write_text(json.dumps(request))
        done = subprocess.run(
            [node, "--no-warnings", str(ROOT / "scripts" / "make_snapshot.mjs"), str(Path(tmp) / "request.json")],
            capture_output=True,
            text=True,
            cwd=tmp,
        )
        if done.returncode != 0:
            raise SnapshotError(f"making it failed:\n{done.stderr.strip()[-3000:]}")
        report = json.loads(done.stdout.strip().splitlines()[-1])
        raw = raw_path.read_bytes()
    got_id = snapshot_build_id(raw)
    if got_id != wanted_id:
        raise SnapshotError(f"its build id {got_id} is not the served Pyodide's {wanted_id}: it would not restore")
    if report["failed"]:
        raise SnapshotError(
            "these modules did not import: " + "; ".join(f"{name} ({why})" for name, why in report["failed"].items())
        )
    restored = report["restored"]
    checks = restored.get("checks")
    if not restored["looplab"] or (checks and checks["passed"] != checks["total"]):
        raise SnapshotError(f"the restored interpreter is not ready: {json.dumps(restored)[:1000]}")
    packed = gzip.compress(raw, compresslevel=9, mtime=0)  # no file name, no time: reproducible
    (out / FILE).write_bytes(packed)
    return {
        "file": FILE,
        "bytes": len(packed),
        "rawBytes": len(raw),
        "heapBytes": report["heapBytes"],
        "buildId": got_id,
        "sha256": hashlib.sha256(raw).hexdigest(),
        "environ": restored["environ"],
        "checks": checks,
        "packages": report["kept"],
    }
