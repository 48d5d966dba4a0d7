"""What a test does on the page in the learner's terms, in any engine (an engines.py `Tab`): open a
lesson, put code in, run, stop, answer input(), read the checks, fill Settings. learner.py is the
same for Playwright's richer page; these read the same page through `tab.js` and act through the
tab's trusted clicks and keys.
"""

from __future__ import annotations

from pathlib import Path

from engines import Tab

READY_MS = 120_000  # a cold Pyodide load in a slower engine on a busy 2-core machine
RUN_MS = 60_000

FIXTURE = "90-e2e-agent"  # tests/e2e/fixtures/90-e2e-agent.py: a tiny agent, two checks


def tid(name: str, more: str = "") -> str:
    """The CSS selector of a `data-testid` (and `more` after it)."""
    return f'[data-testid="{name}"]{more}'


def text_of(tab: Tab, selector: str) -> str | None:
    return tab.js("(sel) => { const el = document.querySelector(sel); return el ? el.innerText : null; }", selector)


def count(tab: Tab, selector: str) -> int:
    return tab.js("(sel) => document.querySelectorAll(sel).length", selector)


def attribute(tab: Tab, selector: str, name: str) -> str | None:
    return tab.js("(sel, name) => document.querySelector(sel)?.getAttribute(name) ?? null", selector, name)


def wait_text(tab: Tab, selector: str, text: str, timeout: float = 30_000) -> str:
    """Wait until `selector`'s text contains `text`; return the whole text."""
    return tab.wait(
        "(sel, text) => { const el = document.querySelector(sel); return el && el.innerText.includes(text) ? el.innerText : null; }",
        selector,
        text,
        timeout=timeout,
        what=f"{selector} to contain {text!r}",
    )


def wait_ready(tab: Tab, slug: str | None = None, timeout: float = READY_MS) -> None:
    """Wait until the lesson `slug` is on screen and Python is ready (Run enabled)."""
    tab.wait(
        """(slug) => (!slug || document.body.dataset.lesson === slug)
            && document.querySelector('[data-testid=run]')?.getAttribute('aria-disabled') === 'false'""",
        slug,
        timeout=timeout,
        what=f"lesson {slug or 'any'} with Run enabled ({tab.engine})",
    )


def open_lesson(tab: Tab, site_url: str, slug: str = FIXTURE) -> None:
    tab.goto(f"{site_url}#/{slug}")
    wait_ready(tab, slug)


def show_lesson(tab: Tab, slug: str) -> None:
    """Go to another lesson as the lesson list does (a change of #/lesson: Python stays loaded).
    The lesson on screen already is not drawn again."""
    tab.js("(slug) => { if (document.body.dataset.lesson !== slug) location.hash = '#/' + slug; }", slug)
    wait_ready(tab, slug)


def status(tab: Tab) -> dict:
    """The status line's text and its data (timestamps are performance.now() values, ms)."""
    return tab.js(
        "() => { const s = document.querySelector('[data-testid=status]'); return { text: s.innerText, ...s.dataset }; }"
    )


def click_text(tab: Tab, selector: str, text: str = "", nth: int = 0) -> None:
    """Click the `nth` shown element matching `selector` whose text contains `text`. It is found and
    marked at once before the click, so a redraw of the page in between cannot leave a stale mark."""
    found = tab.wait(
        """(sel, text, nth) => { const el = [...document.querySelectorAll(sel)].filter((e) => e.innerText.includes(text)
                && e.getClientRects().length > 0)[nth];
            if (!el) return null; el.dataset.e2ePick = String(Math.random()).slice(2); return `[data-e2e-pick="${el.dataset.e2ePick}"]`; }""",
        selector,
        text,
        nth,
        timeout=30_000,
        what=f"{selector} #{nth} saying {text!r}",
    )
    tab.click(found)


def editor(role: str = "exercise") -> str:
    """The first editable code cell of `role` ("exercise" or "code")."""
    return tid("editor", f".cell-{role}")


def set_code(tab: Tab, code: str, role: str = "exercise") -> None:
    """Replace a cell's code as a learner pasting it would: select all, delete, insert the text
    whole (the editing command a paste ends in: no auto-indent, no closing brackets added). A
    synthetic paste event would not do: Firefox gives it an empty clipboard."""
    content = f"{editor(role)} .cm-content"
    tab.click(content)
    tab.keys("Control+a", "Delete")
    tab.wait("(sel) => document.querySelector(sel).innerText.trim() === ''", content, what="the editor emptied")
    assert tab.js("(text) => document.execCommand('insertText', false, text)", code), tab.engine
    wait_text(tab, content, code.strip().splitlines()[0])


def code_of(tab: Tab, role: str = "exercise") -> str:
    return text_of(tab, f"{editor(role)} .cm-content")


def put_solutions(tab: Tab) -> None:
    """Every exercise's solution put in place through the page's "show solution" buttons."""
    for i in range(count(tab, tid("show-solution"))):
        click_text(tab, tid("show-solution"), nth=i)
        click_text(tab, ".cell-solution .cell-actions button", "Put the solution in my code")
        click_text(tab, tid("show-solution"), nth=i)  # hidden again


def start_run(tab: Tab) -> None:
    tab.click(tid("run"))
    tab.wait(
        "() => document.querySelector('[data-testid=stop]').getAttribute('aria-disabled') === 'false' || !!document.querySelector('[data-testid=status]').dataset.runEnded",
        what="the run to start",
    )


def wait_run_end(tab: Tab, timeout: float = RUN_MS) -> None:
    """Wait for the run's end and for what it wrote to be drawn."""
    tab.wait(
        """() => !!document.querySelector('[data-testid=status]').dataset.runEnded
            && document.querySelector('[data-testid=output]').getAttribute('data-drawing') !== 'true'""",
        timeout=timeout,
        what="the run to end",
    )


def checks(tab: Tab) -> list[tuple[bool, str, str]]:
    """(ok, name, message) of each check shown."""
    return [
        tuple(item)
        for item in tab.js(
            """() => [...document.querySelectorAll('[data-testid=checks] li.check')].map((li) => [li.dataset.ok === 'true',
                li.querySelector('.check-name').textContent, (li.querySelector('.check-message') || {}).textContent || ''])"""
        )
    ]


def run(tab: Tab, timeout: float = RUN_MS) -> list[tuple[bool, str, str]]:
    """Click Run, wait for the end, return the checklist. The run is this click's: its start stamp is
    a new one (the last run's stamps stay until the page takes the click)."""
    before = tab.js("() => document.querySelector('[data-testid=status]').dataset.runStarted ?? null")
    tab.click(tid("run"))
    tab.wait(
        "(before) => { const at = document.querySelector('[data-testid=status]').dataset.runStarted; return !!at && at !== before; }",
        before,
        what="the run to start",
    )
    wait_run_end(tab, timeout)
    return checks(tab)


def output(tab: Tab) -> str:
    return text_of(tab, tid("output")) or ""


def fill(tab: Tab, selector: str, text: str) -> None:
    """Type into a field as a person does: click, select all, type (an empty text clears it)."""
    tab.click(selector)
    tab.keys("Control+a", "Backspace")
    if text:
        tab.keys(text)
    tab.wait("(sel, text) => document.querySelector(sel).value === text", selector, text, what=f"{selector} filled")


def choose(tab: Tab, selector: str, value: str) -> None:
    """Choose an option of a <select> (what a pick in its list does: the value, then change)."""
    tab.js(
        """(sel, value) => { const s = document.querySelector(sel); s.focus(); s.value = value;
            s.dispatchEvent(new Event('input', { bubbles: true })); s.dispatchEvent(new Event('change', { bubbles: true })); }""",
        selector,
        value,
    )


def set_checked(tab: Tab, selector: str, checked: bool) -> None:
    if tab.js("(sel) => document.querySelector(sel).checked", selector) != checked:
        tab.click(selector)


def configure_live(
    tab: Tab, base_url: str, model: str = "fake-model", key: str = "", stream: bool | None = None
) -> None:
    """Fill Settings for a custom endpoint and save; the mode stays as it was."""
    tab.click(tid("settings"))
    dialog = "dialog[open]"
    tab.wait("() => !!document.querySelector('dialog[open]')", what="the Settings dialog")
    choose(tab, f"{dialog} select[name=preset]", "custom")
    fill(tab, f"{dialog} input[name=baseUrl]", base_url)
    fill(tab, f"{dialog} input[name=model]", model)
    if stream is not None:
        set_checked(tab, f"{dialog} {tid('stream-replies')}", stream)
    fill(tab, f"{dialog} input[name=apiKey]", key)
    set_checked(tab, f"{dialog} input[name=remember]", False)
    click_text(tab, f"{dialog} button", "Save")
    tab.wait("() => !document.querySelector('dialog[open]')", what="the Settings dialog to close")


def set_mode(tab: Tab, mode: str) -> None:
    """Choose scripted, local or live in the model toggle."""
    choose(tab, tid("model-toggle"), mode)
    tab.wait(
        "(mode) => document.querySelector('[data-testid=model-toggle]').dataset.mode === mode",
        mode,
        what=f"mode {mode}",
    )


def close_dialog(tab: Tab) -> None:
    if count(tab, "dialog[open]"):
        click_text(tab, "dialog[open] button", "Cancel")
    tab.wait("() => !document.querySelector('dialog[open]')", what="the dialog to close")


# --- accessibility: axe-core, as tests/e2e/test_a11y.py runs it in Chromium ----------------------------

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def audit(tab: Tab) -> list[dict]:
    """axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is now: rule, impact, help and
    each element. axe comes from node_modules (a pinned devDependency), put into the page by the
    driver (the page's CSP would refuse it as a script), never a part of the site."""
    if not tab.js("() => typeof window.axe === 'object'"):
        tab.js("() => {\n" + AXE.read_text() + "\n}")
    tab.js("""async () => { await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); }""")
    return tab.js(
        """async (tags) => { const result = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 160), fix: n.failureSummary })) })); }""",
        AXE_TAGS,
    )


def said(violations: list[dict]) -> str:
    """The violations, one rule a line and each element under it, for a failing assertion."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines += [f"    {node['target']}  {node['html']}\n      {node['fix']}" for node in v["nodes"]]
    return "\n".join(lines)
