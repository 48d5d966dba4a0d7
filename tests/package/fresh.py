"""The package as a learner gets it: the wheel `make dist` builds, installed into a fresh virtual
environment in a temporary folder (never the checkout), and used from there. (A module of its own
name: every test folder has a conftest.py, and `from conftest import` would find another's.)"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "web" / "dist"


def dist(out: Path, *args: str) -> list[Path]:
    """scripts/dist.py into `out` (what `make dist` runs); the files it wrote."""
    if not (SITE / "index.html").exists():
        pytest.fail("web/dist is not built: `make build` first (make test-dist does it)")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "dist.py"), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"},
    )
    assert done.returncode == 0, done.stderr
    return sorted(out.iterdir())


class Installed:
    """A fresh venv with the wheel installed, and a folder outside the checkout to run it from."""

    def __init__(self, home: Path, wheel: Path):
        self.home = home
        self.venv = home / "venv"
        venv.EnvBuilder(with_pip=True).create(self.venv)
        done = subprocess.run(
            [
                str(self.venv / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--no-index",
                "--quiet",
                "--disable-pip-version-check",
                str(wheel),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        self.work = home / "work"
        self.work.mkdir()
        # Nothing of the checkout leaks in: no PYTHONPATH, no LOOPLAB_/LLM_ settings, a HOME of its own.
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("LLM_", "LOOPLAB_", "PYTHON", "VIRTUAL_ENV", "XDG_CONFIG"))
        }
        self.env.update(
            HOME=str(home / "home"), PYTHONIOENCODING="utf-8", PATH=f"{self.venv / 'bin'}:{os.environ['PATH']}"
        )

    def command(self) -> list[str]:
        return [str(self.venv / "bin" / "looplab")]

    def looplab(self, *args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*self.command(), *args],
            cwd=cwd or self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
