"""Debian's Chromium as the tests and benchmarks start it, and the site served on a free port:
by scripts/serve.py (the headers the site wants) or by a plain `python -m http.server` under a
sub-path (a static host that sends none of them, as GitHub Pages serves a project).

Shared by tests/e2e (conftest.py), tests/browsers (the engine matrix) and the browser benchmarks in bench/.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError, TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    # Chromium 156 starts the omnibox popup's WebUI (two renderers of chrome:// pages) with
    # every browser, headless too, where it never shows: on 2 cores it took a core for about
    # 120 ms of each page's first load, in the tests and in the benchmarks' figures alike.
    "--disable-features=Translate,OptimizationHints,MediaRouter,"
    "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
    # no host name resolves but the loopback ones: a second wall behind the route guard
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]


def build_site(out: Path, *more_lessons: Path) -> None:
    """The site with lessons/ and the browser tests' fixture lessons (tests/e2e/fixtures), into `out`."""
    folders = [ROOT / "lessons", ROOT / "tests" / "e2e" / "fixtures", *more_lessons]
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_site.py"),
            "--out",
            str(out),
            *[arg for folder in folders for arg in ("--lessons", str(folder))],
        ],
        check=True,
        cwd=ROOT,
    )


def site_for_tests(tmp_path_factory) -> Path:
    """The browser tests' site: the one LOOPLAB_E2E_SITE names (`make e2e-site` builds it once for
    every suite of a `make test`), else built into a temporary folder for this session."""
    named = os.environ.get("LOOPLAB_E2E_SITE")
    if named:
        folder = Path(named).resolve()
        if not (folder / "build.json").exists():
            raise FileNotFoundError(f"LOOPLAB_E2E_SITE={named} holds no built site: `make e2e-site` builds it")
        return folder
    out = tmp_path_factory.mktemp("site") / "dist"
    build_site(out)
    return out


def logged_gets(log: Path) -> list[tuple[str, int]]:
    """(path, status) of every GET in an http.server request log, in order."""
    return [(m[1], int(m[2])) for m in re.finditer(r'"GET (\S+) HTTP/[\d.]+" (\d+)', log.read_text())]


def build_site_of(lessons: Path, out: Path) -> Path:
    """The site built into `out` with the lessons of the folder `lessons` (for a bench's own lessons)."""
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_site.py"), "--out", str(out), "--lessons", str(lessons)],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    return out


class SiteServer:
    """scripts/serve.py in a subprocess on a free port; with `log`, its request log is kept
    (`requests()`, as PlainServer's); with `models`, that folder is the models' mirror."""

    def __init__(self, folder: Path, port: int = 0, log: bool = False, models: Path | None = None):
        command = [sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", str(port), "--dir", str(folder)]
        command += ["--models", str(models)] if models else []
        self.log = None
        if log:
            handle, name = tempfile.mkstemp(prefix="looplab-serve-", suffix=".log")
            self.log = Path(name)
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=handle, text=True)
            os.close(handle)
        else:
            self.process = subprocess.Popen(command + ["--quiet"], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if "http://" not in line:
            self.process.kill()
            raise RuntimeError(f"serve.py did not start: {line!r}")
        self.url = line.split("on ", 1)[1].split()[0]

    def requests(self) -> list[tuple[str, int]]:
        """(path, status) of every GET so far, in order (a server started with `log`)."""
        return logged_gets(self.log)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        if self.log:
            self.log.unlink(missing_ok=True)


class PlainServer:
    """`python -m http.server` serving `folder` under /`prefix`/ on a free port: no COOP/COEP, no
    Content-Security-Policy header, no cache headers. Its request log is kept (`requests()`)."""

    def __init__(self, folder: Path, port: int = 0, prefix: str = "some/sub/path"):
        self.root = Path(tempfile.mkdtemp(prefix="looplab-plain-"))
        (self.root / prefix).parent.mkdir(parents=True)
        (self.root / prefix).symlink_to(Path(folder).resolve(), target_is_directory=True)
        self.log = self.root / "requests.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-u",
                    "-m",
                    "http.server",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--directory",
                    str(self.root),
                ],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        line = self.process.stdout.readline()
        found = re.search(r"port (\d+)", line)
        if not found:
            self.process.kill()
            raise RuntimeError(f"http.server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{found[1]}/{prefix}/"

    def requests(self) -> list[tuple[str, int]]:
        """(path, status) of every GET so far, in order."""
        return logged_gets(self.log)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


def wait_until(page, script: str, timeout: float = 60_000, arg=None):
    """Wait until the JavaScript function `script` (it may be async) returns something truthy; return it.

    page.wait_for_function compiles its predicate with eval inside the page, which the page's
    Content-Security-Policy forbids; page.evaluate goes through the DevTools protocol. A reload
    meanwhile (the page isolating itself) only means: ask again.
    """
    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            value = page.evaluate(script, arg)
        except PlaywrightError as error:
            if "context was destroyed" not in str(error) and "navigat" not in str(error):
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise PlaywrightTimeoutError(f"wait_until: {script} still false after {timeout:.0f} ms")
        page.wait_for_timeout(50)
