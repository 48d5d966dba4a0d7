"""Restarts without waiting (issue 23, page/start/workerpool.js): a new worker gets the first worker's
compiled Module and inflated snapshot instead of fetching them, and a spare worker restored in
idle time is swapped in when Stop (on a page that is not isolated) restarts Python — the ready line
says so — with the next spare started behind it; a spare that failed leaves a normal restore."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from browser import wait_until
from learner import KEPT_SNAPSHOTS, READY_MS, configure_live, open_lesson, run, set_code, start_run, status, wait_ready

LESSON = "04-the-loop"
SLEEP = "import time\nprint('asleep')\ntime.sleep(30)"


def open_with(page, site_url: str, query: str) -> None:
    page.goto(f"{site_url}{query}#/{LESSON}")
    wait_ready(page, LESSON)


def marked(page, name: str) -> int:
    return page.evaluate(f"() => performance.getEntriesByName('looplab:{name}').length")


def stop_a_sleep(page) -> dict:
    """Run a sleep, press Stop, wait for Python to be ready again; the status line's data after."""
    before = status(page)["readyAt"]
    set_code(page, SLEEP)
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("asleep")
    page.get_by_test_id("stop").click()
    wait_until(page, f"() => document.querySelector('[data-testid=status]').dataset.readyAt !== '{before}'", READY_MS)
    return status(page)


def built(site_dir, *keys: str) -> str:
    """A name from build.json (the files the worker loads are named by their bytes)."""
    value = json.loads((site_dir / "build.json").read_text())
    for key in keys:
        value = value[key]
    return value


def requests_of(page) -> list[str]:
    urls = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


def test_stop_swaps_in_the_spare_and_a_second_stop_right_after_works(not_isolated_context, site_url, site_dir):
    snapshot = built(site_dir, "snapshot", "file")
    page = not_isolated_context.new_page()
    fetched = requests_of(page)
    open_lesson(page, site_url, LESSON)
    assert page.evaluate("crossOriginIsolated") is False
    assert status(page)["spare"] == "false"  # the first worker is no spare
    assert [url for url in fetched if url.endswith(snapshot)]  # its worker fetched the snapshot
    wait_until(page, "() => performance.getEntriesByName('looplab:spare-ready').length === 1", READY_MS)
    assert len(page.workers) == 2  # the one in use and the spare
    fetched.clear()

    after = stop_a_sleep(page)
    assert after["spare"] == "true", after
    assert "a spare, restored while the page was idle" in after["text"], after["text"]
    assert after["startedFrom"] == "snapshot:build"
    assert after["given"] == "module snapshot"  # the spare got both kept parts
    # The second Stop, at once: the next spare may still be restoring; Python is ready again either way.
    again = stop_a_sleep(page)
    assert again["startedFrom"] == "snapshot:build"
    assert "given" in again and "module" in again["given"]
    set_code(page, "print('ready again', 6 * 7)")
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("ready again 42")
    assert not [url for url in fetched if snapshot in url or url.endswith(".wasm")], fetched
    for _ in range(50):  # a terminated worker leaves the list soon after
        if len(page.workers) <= 2:
            break
        page.wait_for_timeout(100)
    assert len(page.workers) <= 2, page.workers  # never more than one spare


def test_a_failed_spare_leaves_a_normal_restore_from_the_kept_parts(not_isolated_context, site_url, site_dir):
    page = not_isolated_context.new_page()
    open_with(page, site_url, "?spare=fail")
    wait_until(page, "() => performance.getEntriesByName('looplab:spare-failed').length === 1", READY_MS)
    assert marked(page, "spare-ready") == 0
    fetched = requests_of(page)
    after = stop_a_sleep(page)
    assert after["spare"] == "false", after
    assert "a spare" not in after["text"]
    assert after["startedFrom"] == "snapshot:build"
    assert after["given"] == "module snapshot"  # restored from what the first worker kept
    assert not [url for url in fetched if built(site_dir, "snapshot", "file") in url], (
        fetched
    )  # not fetched (nor inflated) again
    set_code(page, "print('still', 'here')")
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("still here")


def test_without_a_spare_a_restart_still_uses_the_kept_module_and_snapshot(not_isolated_context, site_url):
    page = not_isolated_context.new_page()
    open_with(page, site_url, "?spare=off")
    first = status(page)
    assert first["given"] == ""  # the first worker compiled and fetched
    page.wait_for_timeout(1500)  # time a spare would have had
    assert marked(page, "spare-ready") == 0 and len(page.workers) == 1
    after = stop_a_sleep(page)
    assert after["spare"] == "false" and after["given"] == "module snapshot", after
    assert after["startedFrom"] == "snapshot:build"


def test_a_later_visit_restores_from_the_inflated_snapshot_its_first_visit_kept(fresh_profile, site_url, site_dir):
    page = fresh_profile.new_page()
    open_lesson(page, site_url, LESSON)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    wait_until(page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length > 0)", READY_MS)  # kept once Python is ready
    [(name, size)] = page.evaluate(KEPT_SNAPSHOTS)
    build = page.evaluate("fetch('build.json').then((r) => r.json())")
    assert name == f"{build['version']}.inflated"  # this build's copy, in the origin's private files
    raw = build["snapshot"]["rawBytes"]
    assert raw // 10 < size < raw, (size, raw)  # kept without its zero pages (worker/start/sparse.js)
    fetched = requests_of(page)
    page.reload()
    wait_ready(page, LESSON)
    shown = status(page)
    assert shown["startedFrom"] == "snapshot:build" and "cached" in shown["given"].split(), shown
    assert not [url for url in fetched if built(site_dir, "snapshot", "file") in url], (
        fetched
    )  # not fetched, nor inflated
    set_code(page, "print('from the kept copy', 2 + 2)")
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("from the kept copy 4")


def test_a_kept_copy_cut_short_is_not_restored_and_a_whole_one_replaces_it(fresh_profile, site_url, site_dir):
    # A copy a closed tab left half written, or spoilt on disk: the worker refuses it (worker/start/sparse.js
    # unpackedBy), fetches the site's snapshot as on a first visit, and keeps a whole copy again.
    page = fresh_profile.new_page()
    open_lesson(page, site_url, LESSON)
    wait_until(page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length > 0)", READY_MS)
    [(name, size)] = page.evaluate(KEPT_SNAPSHOTS)
    page.evaluate(
        """async ([name, cut]) => {
        const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('looplab-snapshot');
        const file = await dir.getFileHandle(name);
        const writable = await file.createWritable({ keepExistingData: true });
        await writable.truncate(cut);
        await writable.close(); }""",
        [name, size - 1000],
    )
    assert page.evaluate(KEPT_SNAPSHOTS) == [[name, size - 1000]]
    fetched = requests_of(page)
    page.reload()
    wait_ready(page, LESSON)
    shown = status(page)
    assert shown["startedFrom"] == "snapshot:build" and "cached" not in shown["given"].split(), shown
    assert [url for url in fetched if built(site_dir, "snapshot", "file") in url], fetched  # fetched again
    wait_until(
        page,
        f"({KEPT_SNAPSHOTS})().then((kept) => JSON.stringify(kept) === '{json.dumps([[name, size]], separators=(',', ':'))}')",
        READY_MS,
    )  # a whole copy, in its place
    set_code(page, "print('after the spoilt copy', 3 * 3)")
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("after the spoilt copy 9")


def test_on_an_isolated_page_a_new_worker_shares_the_kept_snapshot(page, site_url, site_dir, fake):
    # Isolated, the first worker hands the snapshot back in shared memory: a new worker's init
    # message shares it instead of the page copying 30 MiB into it (workerpool.js spawn).
    open_lesson(page, site_url, LESSON)
    assert page.evaluate("crossOriginIsolated") is True
    first = status(page)
    assert first["given"] == "prestarted"  # the first worker fetched its own (page/start/prestart.js)
    wait_until(page, "() => performance.getEntriesByName('looplab:spare-ready').length === 1", READY_MS)
    fetched = requests_of(page)
    configure_live(page, fake.url)  # a new endpoint: a new worker holds it
    wait_until(
        page, f"() => document.querySelector('[data-testid=status]').dataset.readyAt !== '{first['readyAt']}'", READY_MS
    )
    after = status(page)
    assert after["given"].split() == ["module", "snapshot", "shared"], after
    assert after["startedFrom"] == "snapshot:build"
    assert not [url for url in fetched if built(site_dir, "snapshot", "file") in url], fetched
    set_code(page, "print('shared', 6 * 7)")
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("shared 42")
