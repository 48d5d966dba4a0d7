"""The memory snapshot's build-time checks (scripts/snapshot.py): what it imports ahead, the heap a
restore has room for, and the build id a snapshot carries. The snapshot itself is made and
restored in tests/e2e/test_snapshot.py (it needs the built site)."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import snapshot

PYODIDE = ROOT / "node_modules" / "pyodide"


def test_imports_are_found_anywhere_and_unfinished_code_imports_nothing():
    source = "import a.b, c\nfrom d.e import f\nfrom . import g\ndef h():\n    import i\n"
    assert snapshot.imports_of(source) == {"a.b", "c", "d.e", "i"}
    assert snapshot.imports_of("def broken(:\n    import x") == set()


def test_the_lazy_extras_and_javascript_modules_are_never_imported_ahead(tmp_path):
    package = tmp_path / "demo"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("import json\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "live.py").write_text("import openai.types\nimport js\nimport demo.__main__\n")
    lesson = {
        "cells": [
            {"kind": "code", "source": "import pytest\nimport inspect\nfrom pyodide_js import x"},
            {"kind": "markdown", "source": "import ignored"},
        ]
    }
    lock = {
        "packages": {
            "demo": {"imports": ["demo"]},
            "openai": {"imports": ["openai"]},
            "pytest": {"imports": ["pytest", "_pytest"]},
        }
    }
    names = snapshot.modules_to_import([lesson], package, lock)
    assert {"demo", "demo.sub", "demo.sub.live", "json", "inspect"} <= set(names)
    assert not {"openai.types", "pytest", "js", "pyodide_js", "ignored", "demo.__main__"} & set(names)
    assert names == sorted(names)


def test_the_heap_limit_is_read_from_the_served_wasm():
    limit = snapshot.heap_limit((PYODIDE / "pyodide.asm.wasm").read_bytes())
    assert limit % 65536 == 0 and 16 * 2**20 <= limit <= 256 * 2**20, limit
    with pytest.raises(snapshot.SnapshotError, match="not a WebAssembly module"):
        snapshot.heap_limit(b"not wasm at all")


def test_a_snapshots_build_id_is_read_and_a_foreign_file_is_refused():
    wanted = snapshot.build_id(PYODIDE / "pyodide.mjs")
    assert len(wanted) == 64 and int(wanted, 16) >= 0
    words = [int(wanted[i : i + 8], 16) for i in range(0, 64, 8)]
    raw = struct.pack("<4I", 0x706E7300, 0, 0, 0) + struct.pack("<8I", *words) + b"\0" * 16
    assert snapshot.snapshot_build_id(raw) == wanted
    with pytest.raises(snapshot.SnapshotError, match="magic"):
        snapshot.snapshot_build_id(b"\0" * 64)


def test_the_memory_can_grow_far_past_what_it_starts_with():
    wasm = (PYODIDE / "pyodide.asm.wasm").read_bytes()
    assert snapshot.heap_max(wasm) >= 1024 * 2**20 > 4 * snapshot.heap_limit(wasm)
    assert snapshot.heap_max(wasm) % 65536 == 0


LOCK = {
    "packages": {
        "demo": {"imports": ["demo"], "depends": [], "file_name": "demo-1-py3-none-any.whl"},
        "pytest": {"imports": ["_pytest", "pytest"], "depends": ["pluggy"], "file_name": "pytest-9-py3-none-any.whl"},
        "pluggy": {"imports": ["pluggy"], "depends": [], "file_name": "pluggy-1-py3-none-any.whl"},
        "openai": {"imports": ["openai"], "depends": ["pydantic"], "file_name": "openai-3-py3-none-any.whl"},
        "pydantic": {"imports": ["pydantic"], "depends": ["pydantic-core"], "file_name": "pydantic-2-py3-none-any.whl"},
        "pydantic-core": {
            "imports": ["pydantic_core"],
            "depends": [],
            "file_name": "pydantic_core-2-cp314-cp314-pyemscripten_2026_0_wasm32.whl",
        },
    }
}


def test_a_snapshot_variant_loads_pure_python_extras_and_refuses_compiled_code(tmp_path):
    assert snapshot.with_extras(LOCK, ["pytest"]) == ["pluggy", "pytest"]
    assert snapshot.with_extras(LOCK, ["_pytest"]) == ["pluggy", "pytest"]  # by an import name too
    with pytest.raises(snapshot.SnapshotError, match=r"needs pydantic-core, with compiled code \(\.so\)"):
        snapshot.with_extras(LOCK, ["pytest", "openai"])
    with pytest.raises(snapshot.SnapshotError, match="'nope' is no package"):
        snapshot.with_extras(LOCK, ["nope"])
    package = tmp_path / "demo"
    package.mkdir()
    (package / "__init__.py").write_text("import json\n")
    (package / "extra.py").write_text("import csv\n")
    lesson = {"cells": [{"kind": "code", "source": "import pytest\nimport inspect"}]}
    names = snapshot.modules_to_import([lesson], package, LOCK, ["pluggy", "pytest"])
    assert {"pytest", "_pytest", "pluggy", "inspect", "csv"} <= set(names) and "openai" not in names
    minimal = snapshot.modules_to_import([lesson], package, LOCK, minimal=True)
    assert "demo" in minimal and not {"inspect", "csv", "demo.extra", "pytest"} & set(minimal)
