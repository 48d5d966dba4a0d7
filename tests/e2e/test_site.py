"""The site in headless Chromium: load, run, edit, reset, stop, offline, theme and shortcuts."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect

from conftest import serve
from learner import (
    FIXTURE,
    KEPT_SNAPSHOTS,
    cell,
    checks,
    code_of,
    open_lesson,
    run,
    set_code,
    start_run,
    status,
    wait_ready,
    wait_run_end,
    wait_until,
)


@pytest.mark.plain_host
def test_cold_start_runs_a_lesson_scripted_with_every_check_passing(fresh_profile, site_url, site_dir):
    page = fresh_profile.new_page()
    seen = []
    page.on("request", lambda request: seen.append(request.url))
    page.goto(f"{site_url}#/{FIXTURE}")
    expect(page.get_by_test_id("lesson-text")).to_contain_text("E2E fixture: a tiny agent")
    wait_ready(page, FIXTURE)
    assert page.evaluate("crossOriginIsolated") is True
    assert "Ready" in status(page)["text"] and "Python 3." in status(page)["text"]
    assert page.get_by_test_id("model-toggle").get_attribute("data-mode") == "scripted"

    results = run(page)
    assert results == [(True, "the run stopped with a final answer", ""), (True, "the answer mentions 5", "")]
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("hello from the lesson")
    expect(output).to_contain_text("answer: The sum is 5.")
    kinds = page.eval_on_selector_all("[data-testid=trace] li.ev", "items => items.map(i => i.dataset.type)")
    assert kinds == [
        "run_start",
        "model_call",
        "model_reply",
        "tool_call",
        "tool_result",
        "model_call",
        "model_reply",
        "stop",
    ]
    expect(page.get_by_test_id("trace")).to_contain_text('add {"a": 2, "b": 3}')
    expect(page.get_by_test_id("context-view")).to_contain_text("Step 2")
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{FIXTURE}"]')).to_have_attribute(
        "data-state", "passed"
    )
    assert "2 of 2 checks passed" in status(page)["text"]
    # Pyodide, the stdlib and the wheels came from the site itself.
    assert any("/pyodide/" in url and url.endswith("pyodide.asm.wasm") for url in seen)
    lock = json.loads((site_dir / "build.json").read_text())["lockFileURL"]  # named by its bytes
    assert re.fullmatch(r"py/pyodide-lock-[0-9a-f]{12}\.json", lock), lock
    assert any(url == site_url + lock for url in seen), seen
    assert all(url.startswith(site_url) for url in seen)


def test_an_edit_survives_a_reload_and_reset_restores_the_lesson(page, site_url):
    open_lesson(page, site_url)
    original = code_of(page)
    set_code(page, 'model = pick_model([final("six")])\nresult = run_agent("?", model, box, Memory("s"))')
    expect(page.locator("[data-role=modified]")).to_be_visible()
    expect(cell(page)).to_have_class("cell cell-exercise is-modified")

    page.reload()
    wait_ready(page, FIXTURE)
    assert code_of(page).startswith('model = pick_model([final("six")])')
    expect(page.locator("[data-role=modified]")).to_be_visible()
    results = run(page)
    assert results[0][0] is True and results[1][0] is False
    assert "the answer was 'six'" in results[1][2]
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{FIXTURE}"]')).to_have_attribute(
        "data-state", "tried"
    )

    page.get_by_test_id("reset").click()  # the confirm is accepted by the page fixture
    assert code_of(page) == original
    expect(page.locator("[data-role=modified]")).to_be_hidden()
    page.reload()
    wait_ready(page, FIXTURE)
    assert code_of(page) == original
    assert all(ok for ok, _, _ in run(page))


def stop_and_measure(page) -> float:
    """Press Stop; return how long the page took to end the run (its own timestamps, ms). Never held
    to an upper bound here (a busy machine's timers slip): the plan's bound is tests/site/
    test_page_rules.py's, and bench/stop.py prints the figures."""
    stop_at = page.evaluate("() => performance.now()")
    page.get_by_test_id("stop").click()
    wait_run_end(page, timeout=10_000)
    return float(status(page)["runEnded"]) - stop_at


@pytest.mark.plain_host
def test_stop_ends_an_endless_loop_and_the_next_run_works(page, site_url):
    open_lesson(page, site_url)
    set_code(page, "print('looping')\nn = 0\nwhile True:\n    n += 1")
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("looping")  # Python is in the loop
    stop_and_measure(page)
    expect(page.get_by_test_id("output")).to_contain_text("Stopped: KeyboardInterrupt.")  # an interrupt, not a restart
    assert status(page)["state"] == "stopped"
    wait_ready(page)
    page.get_by_test_id("reset").click()
    assert all(ok for ok, _, _ in run(page))


def test_stop_waits_for_python_that_heard_it_and_restarts_python_that_will_not_stop(page, site_url):
    """Python clears the interrupt buffer when it takes a Stop: past the grace second, a run whose
    KeyboardInterrupt is still on its way out (here a slow `finally`) is given a little longer; a
    run that swallows the interrupt is ended."""
    open_lesson(page, site_url)
    set_code(
        page,
        "import time\nprint('looping')\ntry:\n    while True: pass\nfinally:\n"
        "    t = time.monotonic()\n    while time.monotonic() - t < 1.1: pass\n    print('cleaned up')",
    )
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("looping")
    took = stop_and_measure(page)
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("cleaned up")
    expect(output).to_contain_text("Stopped: KeyboardInterrupt.")  # the same Python: no restart
    assert status(page).get("restarts", "0") == "0" and took > 1000, (took, status(page))

    wait_ready(page)
    set_code(
        page,
        "print('looping')\nwhile True:\n    try:\n        while True: pass\n    except KeyboardInterrupt:\n        pass",
    )
    start_run(page)
    expect(output).to_contain_text("looping")
    stop_and_measure(page)
    expect(output).to_contain_text("Python took the interrupt but kept running")  # not "did not answer"
    assert status(page)["restarts"] == "1"
    wait_ready(page)
    page.get_by_test_id("reset").click()
    assert all(ok for ok, _, _ in run(page))


@pytest.mark.plain_host
def test_stop_ends_a_long_sleep_and_the_next_run_works(page, site_url):
    open_lesson(page, site_url)
    set_code(page, "import time\nprint('sleeping')\ntime.sleep(100)")
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("sleeping")
    stop_and_measure(page)
    expect(page.get_by_test_id("output")).to_contain_text("Stopped: KeyboardInterrupt.")  # the sleep heard it
    assert status(page)["state"] == "stopped" and status(page).get("restarts", "0") == "0", status(page)
    wait_ready(page)
    page.get_by_test_id("reset").click()
    assert all(ok for ok, _, _ in run(page))


@pytest.mark.plain_host
def test_offline_after_one_visit_the_site_loads_and_runs_a_lesson(fresh_profile, site_dir):
    server = serve(site_dir)  # its own server, stopped below: offline for real
    try:
        page = fresh_profile.new_page()
        open_lesson(page, server.url)
        # The service worker registers once Python is ready and precaches the whole site.
        wait_until(page, "async () => { const r = await navigator.serviceWorker.ready; return !!r.active; }")
        wait_until(page, "() => !!navigator.serviceWorker.controller", timeout=30_000)
    finally:
        server.stop()
    fresh_profile.set_offline(True)
    page.reload()
    wait_ready(page, FIXTURE)
    assert page.evaluate("crossOriginIsolated") is True  # the service worker's copy keeps (or adds) the headers
    assert all(ok for ok, _, _ in run(page))
    expect(page.get_by_test_id("lesson-list").locator("li")).not_to_have_count(0)


def test_dark_mode_follows_the_system_and_the_toggle(browser, site_url):
    context = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 800})
    try:
        from conftest import guard

        guard(context)
        page = context.new_page()
        page.goto(f"{site_url}#/{FIXTURE}")
        expect(page.get_by_test_id("lesson-text")).to_contain_text("E2E fixture")
        expect(page.locator(".cm-editor").first).to_be_visible()  # editors come after the prose (lazyeditor.js)
        background = "() => getComputedStyle(document.body).backgroundColor"
        editor_bg = "() => getComputedStyle(document.querySelector('.cm-editor')).backgroundColor"
        assert page.evaluate(background) == "rgb(17, 20, 24)"
        assert page.evaluate(editor_bg) == "rgb(22, 26, 32)"
        page.locator("[data-role=theme]").click()
        assert page.evaluate(background) == "rgb(247, 247, 244)"
        assert page.evaluate(editor_bg) == "rgb(251, 251, 249)"
        page.reload()  # the choice is remembered
        expect(page.get_by_test_id("lesson-text")).to_contain_text("E2E fixture")
        assert page.evaluate(background) == "rgb(247, 247, 244)"
    finally:
        context.close()


def test_keyboard_shortcuts_run_stop_and_help(page, site_url):
    open_lesson(page, site_url)
    cell(page).locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+Enter")
    wait_run_end(page)
    assert [ok for ok, _, _ in checks(page)] == [True, True]
    # Ctrl+Enter did not add a line to the code
    assert code_of(page).count("\n") == 2

    set_code(page, "while True:\n    pass")
    page.keyboard.press("ControlOrMeta+Enter")
    expect(page.get_by_test_id("stop")).to_be_enabled()
    page.keyboard.press("Escape")
    wait_run_end(page, timeout=10_000)
    assert status(page)["state"] == "stopped"

    # Esc then Tab leaves the editor (Tab alone indents)
    cell(page).locator(".cm-content").click()
    page.keyboard.press("Tab")
    assert page.evaluate("() => !!document.activeElement.closest('.cm-editor')")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.cm-editor')")

    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("?")
    expect(page.locator("dialog.help-dialog")).to_be_visible()
    expect(page.locator("dialog.help-dialog")).to_contain_text("Run the lesson")
    page.keyboard.press("Escape")
    expect(page.locator("dialog.help-dialog")).to_be_hidden()


def test_phone_layout_has_read_code_output_tabs(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        from conftest import guard

        guard(context)
        page = context.new_page()
        open_lesson(page, site_url)
        expect(page.locator(".phone-tabs")).to_be_visible()
        expect(page.get_by_test_id("lesson-list")).to_be_hidden()  # off screen and out of the Tab order
        page.locator("[data-role=menu]").click()
        expect(page.get_by_test_id("lesson-list")).to_be_visible()
        page.keyboard.press("Escape")  # the open drawer covers the button; Esc closes it
        expect(page.get_by_test_id("lesson-list")).to_be_hidden()
        expect(page.locator("[data-role=menu]")).to_have_attribute("aria-expanded", "false")
        expect(page.locator(".prose").first).to_be_visible()
        page.locator(".phone-tabs [data-tab=code]").click()
        expect(page.locator(".prose").first).to_be_hidden()
        expect(cell(page)).to_be_visible()
        page.get_by_test_id("run").click()
        wait_run_end(page)
        expect(page.get_by_test_id("output")).to_be_visible()  # a run shows the output tab
        expect(page.get_by_test_id("checks")).to_contain_text("2 of 2 checks passed")
        page.locator(".phone-tabs [data-tab=read]").click()
        expect(page.get_by_test_id("output")).to_be_hidden()
    finally:
        context.close()


def test_export_and_import_progress(page, site_url, tmp_path):
    open_lesson(page, site_url)
    set_code(page, "result = {'stopped': 'final', 'answer': 'five = 5'}")
    with page.expect_download() as download:
        page.locator("[data-role=export]").click()
    path = tmp_path / "progress.json"
    download.value.save_as(path)
    import json

    data = json.loads(path.read_text())
    assert data["format"] == "looplab-progress"
    assert "five = 5" in json.dumps(data["edits"][FIXTURE])
    page.get_by_test_id("reset").click()
    assert "five" not in code_of(page)
    page.locator("[data-role=import]").set_input_files(str(path))
    expect(cell(page).locator(".cm-content")).to_contain_text("five = 5")


def test_edits_from_an_older_lesson_are_set_aside_not_misplaced(page, site_url, tmp_path):
    open_lesson(page, site_url)
    original = code_of(page)
    set_code(page, "answer = 'made for an older version'")
    # Pretend a new build changed this cell: the saved edit was made from other code.
    page.evaluate(f"""() => {{
        const name = "looplab:v1:edits:{FIXTURE}";
        const edits = JSON.parse(localStorage.getItem(name));
        for (const i of Object.keys(edits.originals)) edits.originals[i] = "the cell as it used to be";
        localStorage.setItem(name, JSON.stringify(edits));
    }}""")
    page.reload()
    wait_ready(page, FIXTURE)
    assert code_of(page) == original
    expect(page.locator("[data-role=stale-edits]")).to_contain_text("1 earlier edit no longer fit")
    expect(page.locator("[data-role=modified]")).to_be_hidden()
    with page.expect_download() as download:
        page.locator("[data-role=export]").click()
    path = tmp_path / "progress.json"
    download.value.save_as(path)
    import json

    stale = json.loads(path.read_text())["edits"][FIXTURE]["stale"]
    assert [e["source"] for e in stale] == ["answer = 'made for an older version'"]
    page.get_by_test_id("reset").click()  # Reset restores the lesson and keeps what was set aside
    page.reload()
    wait_ready(page, FIXTURE)
    expect(page.locator("[data-role=stale-edits]")).to_be_visible()


def test_a_crashed_worker_is_reported_and_restarted_and_edits_are_kept(page, site_url):
    open_lesson(page, site_url)
    crash = "import sys\nsys.setrecursionlimit(10**8)\ndef down(n):\n    return down(n + 1)\ndown(0)"
    set_code(page, crash)
    page.get_by_test_id("run").click()
    wait_run_end(page)
    text = page.get_by_test_id("output").inner_text()
    assert "RecursionError" in text or "restarted" in text, text
    wait_ready(page)
    page.reload()  # the edit was saved before the run
    wait_ready(page, FIXTURE)
    assert code_of(page).startswith("import sys")
    page.get_by_test_id("reset").click()
    assert all(ok for ok, _, _ in run(page))


def test_a_new_build_replaces_the_old_cache_cleanly(fresh_profile, site_dir, tmp_path):
    import shutil
    import socket
    from conftest import build_site

    extra = tmp_path / "extra"
    extra.mkdir()
    text = (site_dir / "lessons" / f"{FIXTURE}.py").read_text().replace("a tiny agent", "the new build")
    (extra / "91-e2e-new-build.py").write_text(text)
    new_dir = tmp_path / "new"
    build_site(new_dir, extra)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    versions = [json_of(d / "build.json")["version"] for d in (site_dir, new_dir)]
    assert versions[0] != versions[1]

    server = serve(site_dir, port)
    page = fresh_profile.new_page()
    try:
        open_lesson(page, server.url)
        wait_until(page, "() => !!navigator.serviceWorker.controller")
        assert page.evaluate("() => caches.keys()") == [f"looplab-{versions[0]}"]
        wait_until(page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length === 1)")
        assert [name for name, _ in page.evaluate(KEPT_SNAPSHOTS)] == [f"{versions[0]}.inflated"]
    finally:
        server.stop()
    server = serve(new_dir, port)  # same origin, new build
    try:
        page.reload()  # served from the old cache; the browser finds the new sw.js meanwhile
        wait_ready(page, FIXTURE)
        wait_until(page, f"async () => JSON.stringify(await caches.keys()) === '[\"looplab-{versions[1]}\"]'")
        expect(page.locator("[data-role=toast]")).to_contain_text("new version")
        page.reload()
        wait_ready(page, FIXTURE)
        expect(page.get_by_test_id("lesson-list")).to_contain_text("the new build")
        assert all(ok for ok, _, _ in run(page))
        # the new build's first start fetched its snapshot and kept it inflated, in place of the old build's
        wait_until(
            page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length === 1 && kept[0][0] === '{versions[1]}.inflated')"
        )
    finally:
        server.stop()
    shutil.rmtree(new_dir)


def json_of(path):
    import json

    return json.loads(path.read_text())


def test_the_network_guard_catches_a_request_to_another_host(page, site_url):
    # https: the page's CSP lets connect-src reach any https: host (a live endpoint), not http: ones
    import conftest

    page.goto(site_url)
    before = len(conftest.OUTSIDE)
    failed = page.evaluate(
        "() => fetch('https://guard-check.invalid/x', {mode: 'no-cors'}).then(() => false, () => true)"
    )
    assert failed is True
    assert conftest.OUTSIDE[before:] == ["https://guard-check.invalid/x"]
    del conftest.OUTSIDE[before:]  # caught on purpose


def test_a_package_the_code_imports_loads_from_the_site_itself(page, site_url):
    open_lesson(page, site_url)
    seen = []
    page.on("request", lambda request: seen.append(request.url))
    set_code(page, "import micropip\nprint('micropip', micropip.__version__)")
    page.get_by_test_id("run").click()
    wait_run_end(page)
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("loading micropip from this site")
    expect(output).to_contain_text("micropip 0.11.1")
    assert [url for url in seen if url.endswith(".whl")] == [f"{site_url}py/micropip-0.11.1-py3-none-any.whl"]


def test_every_control_outside_the_editors_is_reachable_by_keyboard(page, site_url):
    """Tab (and Esc then Tab out of an editor) reaches every control, Import progress included."""
    page.on("filechooser", lambda chooser: None)  # file-chooser interception on from the start, not racing the key
    open_lesson(page, site_url)
    page.locator("body").click(position={"x": 5, "y": 300})
    reached = set()
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("() => !!document.activeElement.closest('.cm-editor')"):
            page.keyboard.press("Escape")
            continue
        name = page.evaluate("""() => { const e = document.activeElement;
            return (e.getAttribute('aria-label') || e.textContent || '').trim(); }""")
        if name in reached and name == "Skip to the lesson":
            break  # once round the page
        reached.add(name)
    for name in (
        "Skip to the lesson",
        "▶ Run",
        "Reset",
        "Settings",
        "Keyboard shortcuts",
        "Export progress",
        "Import progress",
        "Output",
        "Trace",
        "Next lesson →",
    ):
        assert name in reached, (name, sorted(reached))
    page.locator("[data-role=export]").focus()
    page.keyboard.press("Tab")
    expect(page.locator("[data-role=import-button]")).to_be_focused()
    with page.expect_file_chooser(timeout=10_000):
        page.keyboard.press("Enter")


def test_python_that_cannot_load_is_reported_and_not_retried_in_a_loop(context, site_url):
    page = context.new_page()
    workers = []
    page.on("worker", lambda worker: workers.append(worker))
    context.route("**/pyodide.asm.wasm", lambda route: route.fulfill(status=404, body="missing"))
    page.goto(f"{site_url}#/{FIXTURE}")
    status_line = page.get_by_test_id("status")
    expect(status_line).to_contain_text("Python could not be loaded")
    expect(status_line).to_contain_text("Reload the page")
    expect(status_line).to_have_attribute("data-state", "crashed")
    expect(page.get_by_test_id("run")).to_be_disabled()
    # No new worker is started behind the message (each would download Python again, forever).
    try:
        page.wait_for_event("worker", timeout=2000)
        restarted = True
    except PlaywrightTimeoutError:
        restarted = False
    assert not restarted and len(workers) == 1


def test_leaving_a_lesson_during_a_run_stops_it_without_touching_the_next_lesson(page, site_url):
    open_lesson(page, site_url)
    # Python ignores the interrupt, so the run ends (terminated) after the next lesson is shown.
    set_code(
        page,
        "print('looping')\nwhile True:\n    try:\n        while True: pass\n    except KeyboardInterrupt:\n        pass",
    )
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("looping")
    page.locator("[data-role=prev]").click()
    expect(page.locator("body")).not_to_have_attribute("data-lesson", FIXTURE)
    wait_run_end(page, timeout=10_000)
    wait_ready(page)
    expect(page.get_by_test_id("checks")).to_contain_text("Run the lesson to check your code.")
    assert page.get_by_test_id("output").inner_text() == ""


def test_key_shaped_text_the_code_prints_is_redacted_everywhere_on_the_page(page, site_url):
    """One redaction rule for what a run sends the page (web/src/shared/redact.js, the key shapes of
    looplab.trace): no key was configured here, the shapes alone hide what the code prints."""
    open_lesson(page, site_url)
    key, token = "sk-proj-" + "Ab3x" * 6, "ghp_" + "9Zq" * 12
    set_code(
        page,
        "import sys\n"
        "key = 'sk-' + 'proj-' + 'Ab3x' * 6\n"  # built at run time: the code shows no key
        "token = 'gh' + 'p_' + '9Zq' * 12\n"
        "print('the key is', key)\n"
        "print('Authorization: Bearer', 'token.' * 4, file=sys.stderr)\n"
        "model = pick_model([final('use ' + token)])\n"
        "result = run_agent('What is 2 + 3?', model, box, Memory('s'))\n"
        "print('answer:', result['answer'])",
    )
    results = run(page)
    assert results[0][0] is True and results[1] == (False, "the answer mentions 5", "the answer was 'use [redacted]'")
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("the key is [redacted]")
    expect(output).to_contain_text("Authorization: [redacted]")
    expect(output).to_contain_text("answer: use [redacted]")
    expect(page.get_by_test_id("trace")).to_contain_text("answer: use [redacted]")
    html = page.content()
    assert key not in html and token not in html and "token.token." not in html
