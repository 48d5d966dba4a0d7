"""Debian's Chromium as the tests and benchmarks start it, and the site served on a free port.

Shared by tests/e2e (conftest.py) and the browser benchmarks in bench/.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-default-apps", "--disable-features=Translate,OptimizationHints,MediaRouter",
                 # no host name resolves but the loopback ones: a second wall behind the route guard
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"]


class SiteServer:
    """scripts/serve.py in a subprocess on a free port."""

    def __init__(self, folder: Path, port: int = 0):
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", str(port), "--dir", str(folder), "--quiet"],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if "http://" not in line:
            self.process.kill()
            raise RuntimeError(f"serve.py did not start: {line!r}")
        self.url = line.split("on ", 1)[1].split()[0]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
