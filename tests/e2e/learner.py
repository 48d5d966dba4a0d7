"""What a test does on the page, in the learner's terms: open a lesson, edit, run, read the checks."""

from __future__ import annotations

import re

from playwright.sync_api import Error as PlaywrightError, Page, expect

from browser import wait_until  # noqa: F401 (the tests' CSP-safe wait_for_function)

READY_MS = 90_000  # a cold Pyodide load on a busy 2-core machine; the status line shows progress meanwhile

FIXTURE = "90-e2e-agent"  # tests/e2e/fixtures/90-e2e-agent.py

# The inflated snapshots a visit kept for the next (web/src/worker/start/inflated.js), in the origin's
# private files: [[name, bytes], ...] sorted, [] when none (a copy still being written has another name).
KEPT_SNAPSHOTS = """async () => { const kept = [];
    try { const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('looplab-snapshot');
      for await (const [name, handle] of dir.entries()) if (name.endsWith('.inflated')) kept.push([name, (await handle.getFile()).size]);
    } catch { /* no folder yet */ }
    return kept.sort(); }"""


def open_lesson(page: Page, site_url: str, slug: str = FIXTURE) -> None:
    """Go to a lesson and wait until Python is ready (Run enabled)."""
    page.goto(f"{site_url}#/{slug}")
    wait_ready(page, slug)


def wait_ready(page: Page, slug: str | None = None) -> None:
    if slug:
        expect(page.locator("body")).to_have_attribute("data-lesson", slug)
    expect(page.get_by_test_id("run")).to_be_enabled(timeout=READY_MS)


def cell(page: Page, role: str = "exercise", nth: int = 0):
    """An editable code cell: role "exercise" or "code"."""
    return page.locator(f'[data-testid="editor"].cell-{role}').nth(nth)


def code_of(page: Page, role: str = "exercise", nth: int = 0) -> str:
    return cell(page, role, nth).locator(".cm-content").inner_text()


def set_code(page: Page, text: str, role: str = "exercise", nth: int = 0) -> None:
    """Replace a cell's code as a learner would: select all, then type (paste-like, no auto-brackets)."""
    content = cell(page, role, nth).locator(".cm-content")
    content.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)
    expect(content).to_contain_text(text.splitlines()[0])


def put_solutions(page: Page) -> None:
    """Put every exercise's solution in place, through the page's "show solution" buttons."""
    for button in page.get_by_test_id("show-solution").all():
        button.click()
        page.get_by_role("button", name="Put the solution in my code").first.click()
        button.click()  # hide it again: the next "Put the solution" button is then the first


def start_run(page: Page) -> None:
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stop")).to_be_enabled()


def wait_run_end(page: Page, timeout: float = 60_000) -> None:
    """Wait for the run's end, and for what it wrote to be drawn: the Output panel draws text on the
    next animation frames (output.js), after the end is stamped."""
    expect(page.get_by_test_id("status")).to_have_attribute("data-run-ended", re.compile(r"\d"), timeout=timeout)
    expect(page.get_by_test_id("output")).not_to_have_attribute("data-drawing", "true")


def stop_kept_python(page: Page, press=None, ended=None, timeout: float = 10_000) -> float:
    """Press Stop (or `press()`), wait for the run's end (or `ended()`), and check that Python was
    interrupted, not restarted: the page ends a worker that has not stopped STOP_GRACE_MS (1 s) after
    Stop (1.8 s when Python took the interrupt, runner.js `overdue`) and starts another at once,
    counted in the status line's `data-restarts` (report.js).
    Returns the ms from Stop to the end (printed as a figure; a test asserts no wall-clock time)."""
    before = status(page).get("restarts", "0")
    stop_at = page.evaluate("() => performance.now()")
    (press or page.get_by_test_id("stop").click)()
    if ended:
        ended()
    else:
        wait_run_end(page, timeout=timeout)
    took = page.evaluate("() => performance.now()") - stop_at
    after = status(page)
    assert after.get("restarts", "0") == before and "Starting Python again" not in after["text"], (
        after
    )  # the same worker
    print(f"Stop: the run ended {took:.0f} ms after it")
    return took


def run(page: Page) -> list[Shown]:
    """Click Run, wait for the run to end, return the checklist."""
    page.get_by_test_id("run").click()
    wait_run_end(page)
    return checks(page)


class Shown(tuple):
    """One check as the page shows it: (ok, name, message), and its `status` — passed, failed or
    not checked (ok is False for both of the last two)."""

    def __new__(cls, ok: bool, name: str, message: str, status: str):
        shown = super().__new__(cls, (ok, name, message))
        shown.status = status
        return shown

    ok = property(lambda self: self[0])
    name = property(lambda self: self[1])
    message = property(lambda self: self[2])


def checks(page: Page) -> list[Shown]:
    """(ok, name, message) for each check shown, each with its `.status`."""
    return [
        Shown(*item)
        for item in page.eval_on_selector_all(
            "[data-testid=checks] li.check",
            """items => items.map(li => [li.dataset.ok === 'true', li.querySelector('.check-name').textContent,
                                     (li.querySelector('.check-message') || {}).textContent || '',
                                     li.dataset.status])""",
        )
    ]


def status(page: Page) -> dict:
    """The status line's text and its timestamps (performance.now() values, ms)."""
    return page.evaluate("""() => { const s = document.querySelector('[data-testid=status]');
        return {text: s.innerText, ...s.dataset}; }""")


def configure_live(
    page: Page,
    base_url: str,
    model: str = "fake-model",
    key: str = "",
    remember: bool = False,
    api: str = "chat",
    max_tokens: int | None = None,
    stream: bool | None = None,
) -> None:
    """Fill the settings dialog (custom endpoint) and save; leaves the mode as it was."""
    page.get_by_test_id("settings").click()
    dialog = page.locator("dialog[open]")
    dialog.locator("select[name=preset]").select_option("custom")
    dialog.locator("input[name=baseUrl]").fill(base_url)
    dialog.locator("input[name=model]").fill(model)
    dialog.locator("select[name=api]").select_option(api)
    if max_tokens is not None:
        dialog.get_by_test_id("max-tokens").fill(str(max_tokens))
    if stream is not None:
        dialog.get_by_test_id("stream-replies").set_checked(stream)
    dialog.locator("input[name=apiKey]").fill(key)
    dialog.locator("input[name=remember]").set_checked(remember)
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator("dialog[open]")).to_have_count(0)


def set_mode(page: Page, mode: str) -> None:
    """Choose scripted or live in the model toggle (a select); a dialog it opens is cancelled."""
    toggle = page.get_by_test_id("model-toggle")
    toggle.select_option(mode)
    expect(toggle).to_have_attribute("data-mode", mode)
    if page.locator("dialog[open]").count():
        page.locator("dialog[open]").get_by_role("button", name="Cancel").click()


def try_connection(page: Page) -> tuple[str, str]:
    """Open Settings, press Test connection, return (outcome, message); the dialog is closed after."""
    page.get_by_test_id("settings").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_role("button", name="Test connection").click()
    result = dialog.get_by_test_id("test-result")
    expect(result).not_to_have_attribute("data-outcome", "testing", timeout=30_000)
    outcome, message = result.get_attribute("data-outcome"), result.inner_text()
    dialog.get_by_role("button", name="Cancel").click()
    return outcome, message


def wait_code_warmed(page: Page, timeout_ms: int = 20_000) -> None:
    """Wait until the worker that warms Pyodide's code for the next visit (page/start/codecache.js, begun
    once the service worker took over a first visit) has ended itself."""
    wait_until(page, "() => performance.getEntriesByName('looplab:code-warm').length > 0", timeout_ms)
    page.wait_for_timeout(200)  # the worker, made right after the mark, is listed by then
    for _ in range(timeout_ms // 100):
        if not [worker for worker in page.workers if "warm=code" in worker.url]:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the worker warming the code did not end")


def serve_without_isolation(context, site_url: str) -> None:
    """Drop COOP/COEP from every response of the site to this context (block its service workers
    too, or sw.js adds them back): the page is then not cross-origin isolated and Stop restarts Python."""

    def strip(route):
        try:
            response = route.fetch()
            headers = {k: v for k, v in response.headers.items() if not k.lower().startswith("cross-origin-")}
            route.fulfill(response=response, headers=headers)
        except PlaywrightError:
            pass  # the request was dropped meanwhile (a worker ended by Stop, a context closed)

    context.route(f"{site_url}**", strip)


def wait_swapped(page, timeout: float = 60_000) -> None:
    """Wait until every fresh worker the page swapped in (runner.js `swap`: code from elsewhere and
    the learner's own never share one) is ready."""
    wait_until(
        page,
        """() => performance.getEntriesByName('looplab:swapped').length
                 === performance.getEntriesByName('looplab:swap').length""",
        timeout,
    )
