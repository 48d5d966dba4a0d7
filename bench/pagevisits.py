"""A page bench's setting: one build of the site with the bench lessons (bench/fixtures), served,
and each visit in a fresh browser profile (nothing cached, stored or loaded from the one before).

bench/streaming.py and bench/local_model.py measure in it; `visits` runs theirs. `Requests`, the
requests a page made and their bytes, serves bench/startup.py and bench/snapshot_size.py too.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer

Visit = Callable[[BrowserContext, str], dict]  # (a fresh profile's context, the site's URL) -> figures


class Requests:
    """Every request a page and its workers make from now on, and those finished or failed."""

    def __init__(self, page: Page):
        self.started, self.ended = [], set()
        self.page = page
        page.on("request", lambda request: self.started.append(request))
        page.on("requestfinished", lambda request: self.ended.add(request))
        page.on("requestfailed", lambda request: self.ended.add(request))

    def settled(self, timeout_ms: int = 10_000) -> list:
        """The requests started so far that finished (not failed), once each has ended or `timeout_ms`
        passed: a worker's big response can be reported finished after Python is ready."""
        before = list(self.started)
        for _ in range(timeout_ms // 100):
            if all(request in self.ended for request in before):
                break
            self.page.wait_for_timeout(100)
        return [request for request in before if request in self.ended and not request.failure]

    def bytes(self) -> int:
        """What the settled requests transferred: bodies and headers."""
        return sum(s["responseBodySize"] + s["responseHeadersSize"] for s in (r.sizes() for r in self.settled()))


def build(out: Path) -> None:
    """The site with the course's lessons and the bench lessons, into `out`."""
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_site.py"),
            "--out",
            str(out),
            "--lessons",
            str(ROOT / "lessons"),
            "--lessons",
            str(ROOT / "bench" / "fixtures"),
        ],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )


def visits(each: list[tuple[str, Visit]]) -> dict[str, dict]:
    """Build and serve the site once, run each (name, visit) in its own fresh profile, in order;
    their figures by name. The server stops and the profiles go, whatever a visit raises."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        site = Path(tmp) / "site"
        build(site)
        server = SiteServer(site)
        try:
            for name, visit in each:
                context = p.chromium.launch_persistent_context(
                    str(Path(tmp) / f"profile-{name}"), executable_path=CHROMIUM, args=CHROMIUM_ARGS
                )
                try:
                    results[name] = visit(context, server.url)
                finally:
                    context.close()
        finally:
            server.stop()
    return results
