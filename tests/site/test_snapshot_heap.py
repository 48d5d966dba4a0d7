"""A memory snapshot bigger than the 30 MiB Python's memory starts with restores when the memory is
grown first (web/src/worker/start/snapshot.js growFor, in the worker's and the build's instantiate
wrapper), and fails without it ("offset is out of bounds", pyodide issue 6254). Made and restored
in Node.js from node_modules/pyodide by tests/site/big_snapshot.mjs; the browser's restore of the
site's own snapshot is tests/e2e/test_snapshot.py."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START = 30 * 2**20  # the initial memory of pyodide.asm.wasm (tests/site/test_snapshot.py reads it)


def test_a_snapshot_over_the_initial_memory_restores_only_with_the_memory_grown_first():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: Node.js 20+ makes and restores the snapshot")
    done = subprocess.run(
        [node, "--no-warnings", str(ROOT / "tests" / "site" / "big_snapshot.mjs"), "40"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["heapBytes"] > START + 16 * 2**20, report["heapBytes"]  # well over the old limit
    assert "out of bounds" in report["without"].get("error", ""), report["without"]
    grown = report["grown"]
    assert "error" not in grown, grown
    assert grown["digest"] == report["made"]["digest"] and grown["length"] == 40 * 2**20 == report["made"]["length"]
    assert grown["more"] == 8 * 2**20 and grown["sum"] == 45
