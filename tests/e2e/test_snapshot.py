"""The memory snapshot (issue 15): Python restored from the site's snapshot instead of started, and
a clean fallback to a normal load when the snapshot is missing, corrupt or refused.

Every other browser test starts from the snapshot too (it is the default start); these check what
is particular to it: the ready line says how Python started, nothing of the build machine is in
the snapshot, the restored interpreter is fresh (environment, RNG, files), Stop and the lazy extras
work after a restore, a worker restart (Stop without isolation, a crash) restores again, and every
broken snapshot ends in a normal load whose ready line says why.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import expect

from browser import wait_until
from conftest import ROOT, serve
from learner import (
    KEPT_SNAPSHOTS,
    READY_MS,
    open_lesson,
    put_solutions,
    run,
    set_code,
    start_run,
    status,
    stop_kept_python,
    wait_ready,
)

LESSON = "04-the-loop"


def snapshot_file(site: Path) -> str:
    """The site's snapshot, named by its bytes (build.json: the page and the worker read it there)."""
    name = json.loads((site / "build.json").read_text())["snapshot"]["file"]
    assert re.fullmatch(r"py/snapshot-[0-9a-f]{12}\.bin\.gz", name), name
    return name


def started_from(page) -> str:
    return status(page).get("startedFrom", "")


def output(page) -> str:
    return page.get_by_test_id("output").inner_text()


def run_code(page, code: str) -> str:
    set_code(page, code)
    run(page)
    return output(page)


def assert_lesson_passes(page) -> None:
    put_solutions(page)
    results = run(page)
    assert results and all(ok for ok, _, _ in results), results


# --- the build ------------------------------------------------------------------------------------


def test_the_snapshot_holds_nothing_of_the_machine_that_built_it_and_builds_reproducibly(site_dir, tmp_path):
    """A second build, from another folder with a made-up HOME, PATH and user, gives the very same
    bytes, and none of those made-up values (nor the folders) appear in them."""
    home = tmp_path / "home-of-builder-q7x"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "USER": "builder-q7x",
        "LOGNAME": "builder-q7x",
        "PATH": f"{tmp_path / 'bin-of-builder-q7x'}:{os.environ['PATH']}",
        "LLM_API_KEY": "sk-builder-q7x",
    }
    out = tmp_path / "again"
    folders = [ROOT / "lessons", ROOT / "tests" / "e2e" / "fixtures"]
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_site.py"),
            "--out",
            str(out),
            *[arg for folder in folders for arg in ("--lessons", str(folder))],
        ],
        check=True,
        cwd=tmp_path,
        env=env,
        capture_output=True,
    )
    assert snapshot_file(site_dir) == snapshot_file(out), "two builds of the same sources named their snapshots apart"
    first = (site_dir / snapshot_file(site_dir)).read_bytes()
    second = (out / snapshot_file(out)).read_bytes()
    assert first == second, "two builds of the same sources gave different snapshots"
    raw = gzip.decompress(second)
    assert second[4:8] == b"\0\0\0\0" and second[3] & 0x08 == 0  # gzip: no time, no file name
    for secret in (str(home), "builder-q7x", str(tmp_path), str(site_dir), str(ROOT), os.environ["PATH"]):
        assert secret.encode() not in raw, f"{secret!r} is in the snapshot"
    facts = json.loads((site_dir / "build.json").read_text())["snapshot"]
    # the restored interpreter's environment, read at build time before the page's start-up
    assert set(facts["environ"]) <= {"LD_LIBRARY_PATH"}, facts["environ"]
    assert facts["checks"]["passed"] == facts["checks"]["total"] > 0


# --- a visit ------------------------------------------------------------------------------------------


def test_a_visit_restores_python_from_the_sites_snapshot_and_says_so(page, site_url):
    open_lesson(page, site_url, LESSON)
    expect(page.get_by_test_id("status")).to_contain_text("from a snapshot")
    assert started_from(page) == "snapshot:build"
    assert_lesson_passes(page)


def test_a_restored_python_is_fresh_and_has_its_files(page, site_url):
    """The environment is the page's own (nothing of the builder), the RNG is reseeded per visit,
    looplab's sources can be read (inspect, tracebacks) and its metadata found."""
    code = (
        "import os, random, inspect, importlib.metadata, looplab.loop\n"
        "print('env', sorted(os.environ))\n"
        "print('home', os.environ['HOME'], os.getcwd())\n"
        "print('draw', random.random())\n"
        "print('source', len(inspect.getsource(looplab.loop.run_agent)) > 100)\n"
        "print('version', importlib.metadata.version('looplab'))\n"
        "import looplab_bridge as bridge\n"  # the worker laid its files again (worker.js layFiles)
        "print('files', len(bridge._FILES), all(open(p, 'rb').read() == d for p, d in bridge._FILES.items()))\n"
    )
    draws = []
    for _ in range(2):
        open_lesson(page, site_url, LESSON)
        assert started_from(page) == "snapshot:build"
        text = run_code(page, code)
        assert "env ['HOME', 'LD_LIBRARY_PATH', 'LOOPLAB_MODEL']" in text, text
        assert "home /home/pyodide /home/pyodide" in text and "source True" in text, text
        assert "version " in text and "PackageNotFoundError" not in text, text
        assert re.search(r"^files (\d{2,}) True$", text, re.M), text  # every file, byte for byte
        draws.append(next(line for line in text.splitlines() if line.startswith("draw")))
        page.reload()
    assert draws[0] != draws[1], draws


def test_after_a_restore_stop_ends_a_sleep_and_extras_still_load(page, site_url):
    open_lesson(page, site_url, LESSON)
    assert started_from(page) == "snapshot:build"
    assert page.evaluate("crossOriginIsolated") is True
    set_code(page, "import time\nprint('asleep')\ntime.sleep(30)")
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("asleep")
    stop_kept_python(page)  # the sleep was interrupted, not waited out or ended with the worker
    expect(page.get_by_test_id("output")).to_contain_text("Stopped: KeyboardInterrupt")
    text = run_code(page, "import openai\nprint('openai', openai.__version__)")
    assert "(loading " in text and "openai" in text, text
    assert re.search(r"^openai \d+\.\d+", text, re.MULTILINE), text


# --- restarts -----------------------------------------------------------------------------------------


def test_without_isolation_stop_restarts_python_from_the_snapshot(not_isolated_context, site_url):
    page = not_isolated_context.new_page()
    open_lesson(page, site_url, LESSON)
    assert page.evaluate("crossOriginIsolated") is False
    first_ready = status(page)["readyAt"]
    set_code(page, "import time\nprint('asleep')\ntime.sleep(30)")
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("asleep")
    page.get_by_test_id("stop").click()
    wait_until(
        page, f"() => document.querySelector('[data-testid=status]').dataset.readyAt !== '{first_ready}'", READY_MS
    )
    expect(page.get_by_test_id("status")).to_contain_text("from a snapshot")
    assert started_from(page) == "snapshot:build"
    page.get_by_test_id("reset").click()
    assert_lesson_passes(page)


def test_a_crashed_worker_restarts_from_the_snapshot(page, site_url):
    open_lesson(page, site_url, LESSON)
    first_ready = status(page)["readyAt"]
    set_code(page, "import os\nos.abort()")
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("output")).to_contain_text("restarted", timeout=READY_MS)
    wait_until(
        page, f"() => document.querySelector('[data-testid=status]').dataset.readyAt !== '{first_ready}'", READY_MS
    )
    wait_ready(page)
    assert started_from(page) == "snapshot:build"
    assert "ready" in run_code(page, "print('ready again')")


# --- a snapshot over the 30 MiB Python starts with -------------------------------------------------


def test_a_snapshot_bigger_than_the_initial_memory_restores_with_pytest_ready(browser, tmp_path):
    """The variant with pytest in it (build_site.py --snapshot-with pytest) has a heap over the 30 MiB
    pyodide.asm.wasm starts with: the worker grows the memory before the restore, and lesson 17 runs
    pytest at once, with no wheel fetched."""
    out = tmp_path / "with-pytest"
    folders = [ROOT / "lessons", ROOT / "tests" / "e2e" / "fixtures"]
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_site.py"),
            "--out",
            str(out),
            "--snapshot-with",
            "pytest",
            *[arg for folder in folders for arg in ("--lessons", str(folder))],
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    build = json.loads((out / "build.json").read_text())
    assert build["snapshot"]["rawBytes"] - 2**16 > build["heapLimit"] == 30 * 2**20, build["snapshot"]["rawBytes"]
    assert "pytest" in build["snapshot"]["packages"]
    server = serve(out)
    context = browser.new_context()
    try:
        page = context.new_page()
        wheels = []
        page.on("request", lambda request: wheels.append(request.url) if request.url.endswith(".whl") else None)
        open_lesson(page, server.url, "17-evaluate-your-agent")
        assert started_from(page) == "snapshot:build"
        assert_lesson_passes(page)
        text = output(page)
        assert re.search(r"^pytest ran 19 tests: 19 passed", text, re.M), text[:500]
        assert "(loading" not in text and not wheels, (text[:300], wheels)
    finally:
        context.close()
        server.stop()


# --- fallbacks ----------------------------------------------------------------------------------------


def test_a_forced_refusal_falls_back_to_a_normal_load(page, site_url):
    """`?snapshot=refuse` spoils the snapshot's magic number: Pyodide itself refuses it (as a
    browser whose build differs would), and Python loads normally."""
    page.goto(f"{site_url}?snapshot=refuse#/{LESSON}")
    wait_ready(page, LESSON)
    text = status(page)["text"]
    assert "(snapshot refused: the site's snapshot: Snapshot has invalid magic number)" in text, text
    assert "from a snapshot" not in text and started_from(page) == "load:refused"
    assert_lesson_passes(page)


def test_a_missing_snapshot_falls_back_and_says_so(context, site_url, site_dir):
    context.route(f"**/{snapshot_file(site_dir)}", lambda route: route.fulfill(status=404, body="gone"))
    page = context.new_page()
    open_lesson(page, site_url, LESSON)
    expect(page.get_by_test_id("status")).to_contain_text(
        "(snapshot refused: the site's snapshot: the site's snapshot is missing (HTTP 404))"
    )
    assert started_from(page) == "load:refused"
    assert_lesson_passes(page)


def test_a_corrupt_cached_snapshot_is_refused_deleted_and_fetched_afresh(fresh_profile, site_url, site_dir):
    """The service worker's copy spoiled in Cache Storage: the page loads normally, says why, and
    deletes the copy; the next visit fetches the snapshot from the site and restores again."""
    page = fresh_profile.new_page()
    open_lesson(page, site_url, LESSON)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the service worker, which precached the snapshot
    wait_ready(page, LESSON)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)") and started_from(page) == "snapshot:build"
    snapshot = snapshot_file(site_dir)
    cached = f"""async () => {{ for (const name of await caches.keys()) {{
        if ((await (await caches.open(name)).match('{snapshot}'))) return name; }} return null; }}"""
    cache = page.evaluate(cached)
    assert cache and cache.startswith("looplab-"), cache
    # The inflated copy a visit keeps for the next (worker/start/inflated.js) would be read instead: gone too.
    wait_until(page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length === 1)")
    page.evaluate(
        """async ([name, snapshot]) => { const cache = await caches.open(name);
        const kept = await (await navigator.storage.getDirectory()).getDirectoryHandle('looplab-snapshot');
        for await (const file of kept.keys()) await kept.removeEntry(file);
        const gzipHead = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255, 1, 2, 3, 4, 5, 6, 7, 8]);
        await cache.put(snapshot, new Response(gzipHead)); }""",
        [cache, snapshot],
    )
    page.reload()
    wait_ready(page, LESSON)
    text = status(page)["text"]
    assert "(snapshot refused: the site's snapshot: the site's snapshot is corrupt" in text, text
    assert started_from(page) == "load:refused"
    wait_until(page, f"({cached})().then((name) => name === null)")
    assert_lesson_passes(page)
    page.reload()
    wait_ready(page, LESSON)
    expect(page.get_by_test_id("status")).to_contain_text("from a snapshot")
