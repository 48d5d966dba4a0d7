"""The page's own JavaScript modules, run in Node.js for the tests that hold them to looplab's rules."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # tests/, for fakeserver


class NodeModule:
    """One web/src module in a Node.js process (tests/site/node_module.mjs): call its functions."""

    def __init__(self, path: str):
        node = shutil.which("node")
        if node is None:
            pytest.fail("node is missing: Node.js 20+ runs the page's modules here (and builds the site)")
        self.process = subprocess.Popen(
            [node, "--no-warnings", str(ROOT / "tests" / "site" / "node_module.mjs"), str(ROOT / path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            cwd=ROOT,
        )

    def ask(self, request: dict):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"node stopped (exit {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer["value"]

    def call(self, name: str, *args):
        return self.ask({"call": name, "args": list(args)})

    def get(self, name: str):
        return self.ask({"get": name})

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


def node_module(path: str, scope: str = "module"):
    """A fixture for one web/src module in Node.js, closed when its scope ends; the fixture's name is
    the one it is assigned to: `thought_js = node_module("web/src/page/model/thought.js")`."""

    @pytest.fixture(scope=scope)
    def running():
        module = NodeModule(path)
        yield module
        module.close()

    return running


redact_js = node_module("web/src/shared/redact.js", scope="session")
protocol_js = node_module("web/src/shared/protocol.js", scope="session")
