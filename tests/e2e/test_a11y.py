"""Accessibility: axe-core's WCAG 2.0/2.1 A and AA rules on every state a learner meets, light and dark,
desktop and phone; and what axe cannot see: the run's end announced once, buttons that say their
state, focus back where it was after a dialog, editors reachable and scrollable by keyboard.

axe-core comes from node_modules (a pinned devDependency) and is injected into the page by the test
only: it is never part of the site. A new page state is one more `State` in STATES.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, TimeoutError as PlaywrightTimeoutError, expect

from learner import FIXTURE, cell, open_lesson, run, set_code, wait_ready, wait_run_end, wait_until

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# Parts of the page axe is told to skip, each with the reason (selector -> why). Prefer a fix.
EXCLUDED: dict[str, str] = {}

HOME = "01-agent-or-workflow"  # the first lesson: what the site shows at its bare address
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


# --- the audit -------------------------------------------------------------------------------------


def audit(page: Page) -> list[dict]:
    """axe-core's WCAG A/AA violations on the page as it is now: rule, impact, help, and each element."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # through the DevTools protocol: a <script> tag (add_script_tag) is inline, which the page's CSP refuses
        session = page.context.new_cdp_session(page)
        session.send("Runtime.evaluate", {"expression": AXE.read_text()})
        session.detach()
    settle(page)
    return page.evaluate(
        """async ([tags, exclude]) => {
        const context = exclude.length ? { include: [document], exclude: exclude.map((s) => [s]) } : document;
        const result = await axe.run(context, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 160), fix: n.failureSummary })) }));
    }""",
        [TAGS, list(EXCLUDED)],
    )


def settle(page: Page) -> None:
    """Wait for transitions (the drawer slides in) and two frames (queued output is drawn)."""
    page.evaluate("""async () => {
        await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    }""")


def report(state: str, violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"[{state}] {v['id']} ({v['impact']}): {v['help']} — {v['url']}")
        for node in v["nodes"]:
            fix = " / ".join(line.strip() for line in node["fix"].splitlines()[1:] if line.strip())
            lines.append(f"    {node['target']}  {node['html']}\n      fix: {fix}")
    return "\n".join(lines)


# --- the states --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A page state to audit: `enter` brings an open page (Python ready) to it, `leave` undoes what
    would get in the next state's way (an open dialog). `layouts`: "desktop", "phone" or both."""

    name: str
    enter: Callable[[Page, str], None]
    leave: Callable[[Page], None] = lambda page: None
    layouts: tuple[str, ...] = ("desktop",)


def show(page: Page, site_url: str, slug: str) -> None:
    """Open a lesson (a hash change: Python stays loaded) with nothing left over from an earlier state."""
    page.keyboard.press("Escape")  # a drawer or dialog left open
    if page.evaluate("() => document.body.dataset.lesson") != slug:
        page.evaluate("(slug) => { location.hash = '#/' + slug; }", slug)
    wait_ready(page, slug)


def after_run(panel: str, code: str | None = None) -> Callable[[Page, str], None]:
    def enter(page: Page, site_url: str) -> None:
        show(page, site_url, FIXTURE)
        page.get_by_test_id("reset").click()  # the confirm is accepted by the page fixture
        if code is not None:
            set_code(page, code)
        run(page)
        if page.locator(".panel-tabs").is_visible():
            page.locator(f".panel-tabs [data-panel={panel}]").click()

    return enter


def home(page: Page, site_url: str) -> None:
    show(page, site_url, HOME)


def solution_open(page: Page, site_url: str) -> None:
    show(page, site_url, HOME)
    page.get_by_test_id("show-solution").first.click()
    expect(page.locator(".cell-solution .cm-editor").first).to_be_visible()


def settings_open(page: Page, site_url: str) -> None:
    show(page, site_url, FIXTURE)
    page.get_by_test_id("settings").click()
    expect(page.locator("dialog.settings-dialog")).to_be_visible()


def help_open(page: Page, site_url: str) -> None:
    show(page, site_url, FIXTURE)
    page.locator("[data-role=help]").click()
    expect(page.locator("dialog.help-dialog")).to_be_visible()


def close_dialog(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.locator("dialog[open]")).to_have_count(0)


def phone_tab(tab: str) -> Callable[[Page, str], None]:
    def enter(page: Page, site_url: str) -> None:
        if tab == "output":
            after_run("output")(page, site_url)  # a run switches the phone to its Output tab
        else:
            show(page, site_url, FIXTURE)
        page.locator(f".phone-tabs [data-tab={tab}]").click()

    return enter


def drawer_open(page: Page, site_url: str) -> None:
    show(page, site_url, FIXTURE)
    page.locator("[data-role=menu]").click()
    expect(page.get_by_test_id("lesson-list")).to_be_visible()


def approval_open(page: Page, site_url: str) -> None:
    show(page, site_url, "92-e2e-approval")
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("approval")).to_be_visible()


def approval_answered(page: Page) -> None:
    page.get_by_test_id("reject").click()
    wait_run_end(page)


FILES = "94-e2e-files"  # tests/e2e/fixtures/94-e2e-files.py: a project an agent edits


def files_shown(page: Page, site_url: str) -> None:
    """The Files panel after a run: the project's tree, the diff of the run's edit, a file on view."""
    show(page, site_url, FILES)
    page.get_by_test_id("reset").click()
    run(page)
    if page.locator(".phone-tabs").is_visible():
        page.locator(".phone-tabs [data-tab=output]").click()
    page.locator(".panel-tabs [data-panel=files]").click()
    page.get_by_test_id("files").locator('button[data-path="README.md"]').click()
    expect(page.get_by_test_id("files-diff")).to_contain_text("+    return units * 4")


def approval_with_diff(page: Page, site_url: str) -> None:
    """An edit's approval: the dialog shows the diff of the change it would make."""
    show(page, site_url, FILES)
    set_code(page, "approve = review_edits(root)", "code", 1)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("approval-diff")).to_contain_text("-    return units * 3")


def hint_and_prediction(page: Page, site_url: str) -> None:
    show(page, site_url, "91-e2e-format")
    page.get_by_test_id("show-hint").click()
    page.get_by_test_id("predict-choice").first.click()
    expect(page.get_by_test_id("hint")).to_have_count(1)


def inspector_forked(page: Page, site_url: str) -> None:
    """The run inspector on a step, with a fork of it beside the original run."""
    show(page, site_url, "93-e2e-inspect")
    run(page)
    if page.locator(".phone-tabs").is_visible():
        page.locator(".phone-tabs [data-tab=output]").click()
    page.locator(".panel-tabs [data-panel=trace]").click()
    page.get_by_test_id("trace-runs").locator("button").first.click()
    page.get_by_test_id("fork").click()
    expect(page.get_by_test_id("fork-editor")).to_be_visible()
    page.get_by_test_id("fork-run").click()
    expect(page.get_by_test_id("trace-fork")).to_be_visible()


def share_open(page: Page, site_url: str) -> None:
    show(page, site_url, FIXTURE)
    if page.locator(".phone-tabs").is_visible():
        page.locator(".phone-tabs [data-tab=read]").click()  # the lesson's tools are on the Read tab
    page.get_by_test_id("share").click()
    expect(page.get_by_test_id("share-url")).to_be_visible()


def input_waiting(page: Page, site_url: str) -> None:
    """input() waits: its prompt and answer field in the Output panel."""
    show(page, site_url, FIXTURE)
    page.get_by_test_id("reset").click()
    set_code(page, 'name = input("Your name? ")')
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stdin")).to_be_visible()


def input_answered(page: Page) -> None:
    page.get_by_test_id("stdin").press("Enter")
    wait_run_end(page)


FAILING = 'model = pick_model([final("six")])\nresult = run_agent("?", model, box, Memory("s"))'

STATES = [
    State("home lesson", home),
    State("run: Output tab", after_run("output")),
    State("run: Trace tab", after_run("trace")),
    State("run: Context tab", after_run("context")),
    State("failed run's checklist", after_run("output", FAILING)),
    State("solution shown", solution_open),
    State("Settings dialog", settings_open, close_dialog),
    State("keyboard help", help_open, close_dialog),
    State("approval dialog (a paused run)", approval_open, approval_answered),
    State("input() waiting for an answer", input_waiting, input_answered, layouts=("desktop", "phone")),
    State("Files panel: a project's tree, its diff and a file", files_shown, layouts=("desktop", "phone")),
    State("approval dialog with an edit's diff", approval_with_diff, approval_answered),
    State("a hint and a prediction shown", hint_and_prediction),
    State("run inspector: a step and its fork", inspector_forked, layouts=("desktop", "phone")),
    State("share dialog", share_open, close_dialog, layouts=("desktop", "phone")),
    State("phone: Read tab", phone_tab("read"), layouts=("phone",)),
    State("phone: Code tab", phone_tab("code"), layouts=("phone",)),
    State("phone: Output tab", phone_tab("output"), layouts=("phone",)),
    State("phone: lesson drawer", drawer_open, lambda page: page.keyboard.press("Escape"), layouts=("phone",)),
]

LOOKS = [("desktop", "light"), ("desktop", "dark"), ("phone", "light"), ("phone", "dark")]


@pytest.mark.parametrize(("layout", "scheme"), LOOKS, ids=[f"{a}-{b}" for a, b in LOOKS])
def test_no_wcag_violations_in_any_state(browser, site_url, layout, scheme):
    phone = layout == "phone"
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP, is_mobile=phone, has_touch=phone, color_scheme=scheme
    )
    from conftest import guard

    guard(context)
    try:
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())  # Reset's confirm
        open_lesson(page, site_url, HOME)
        found = {}
        for state in STATES:
            if layout not in state.layouts:
                continue
            state.enter(page, site_url)
            found[state.name] = audit(page)
            state.leave(page)
        counts = {name: (len(v), sum(len(rule["nodes"]) for rule in v)) for name, v in found.items()}
        print(f"\naxe {layout}-{scheme}: " + "; ".join(f"{n}: {r} rules/{e} elements" for n, (r, e) in counts.items()))
        assert len(found) >= 4 and all(isinstance(v, list) for v in found.values())
        problems = "\n".join(report(f"{layout}-{scheme}: {name}", v) for name, v in found.items() if v)
        assert not problems, "axe-core found WCAG violations:\n" + problems
    finally:
        context.close()


# --- syntax colours -----------------------------------------------------------------------------------

# Every kind of token the Python highlighting colours, on lines long enough to select.
SNIPPET = """import sys  # a comment
@decorator
class Greeter(Base):
    def greet(self, name="x", n=42, flag=True, none=None):
        print(f"hi {name}\\n", n * 2 >= 1 and not flag, file=sys.stderr)
        return name.upper()"""

COLOURS = """(role) => {
    const cell = document.querySelector(`[data-testid="editor"].cell-${role}`);
    const style = (el) => getComputedStyle(el);
    const editor = cell.querySelector('.cm-editor');
    const tokens = [...cell.querySelectorAll('.cm-line span')].filter((s) => !s.children.length && s.textContent.trim())
        .map((s) => [s.textContent, style(s).color]);
    const lines = [...cell.querySelectorAll('.cm-line')].map((l) => [l.textContent.trim().slice(0, 20), style(l).color]);
    const numbers = [...cell.querySelectorAll('.cm-lineNumbers .cm-gutterElement')].filter((g) => g.textContent)
        .map((g) => [g.textContent, style(g).color, style(g).backgroundColor]);
    return { editor: style(editor).backgroundColor, gutter: style(cell.querySelector('.cm-gutters')).backgroundColor,
             active: style(cell.querySelector('.cm-activeLine')).backgroundColor,
             selection: (cell.querySelector('.cm-selectionBackground') && style(cell.querySelector('.cm-selectionBackground')).backgroundColor),
             tokens, lines, numbers };
}"""


def rgba(text: str) -> tuple[float, float, float, float]:
    """A computed CSS colour, "rgb(r, g, b)" or "rgba(r, g, b, a)", as (r, g, b, a)."""
    parts = [float(p) for p in text[text.index("(") + 1 : -1].replace("/", ",").split(",")]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def over(top, below):
    """`top` painted over the opaque colour `below`."""
    r, g, b, a = rgba(top) if isinstance(top, str) else top
    return tuple(c * a + d * (1 - a) for c, d in zip((r, g, b), below[:3])) + (1.0,)


def contrast(fg, bg) -> float:
    """WCAG 2 contrast ratio of two opaque colours."""

    def luminance(colour):
        def channel(c):
            c /= 255
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(c) for c in colour[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_is_computed_as_wcag_defines_it():
    assert round(contrast((0, 0, 0), (255, 255, 255)), 2) == 21.0
    assert round(contrast((0x77, 0x77, 0x77), (255, 255, 255)), 2) == 4.48  # the classic just-failing grey
    assert over("rgba(0, 0, 0, 0.5)", (255, 255, 255, 1.0))[:3] == (127.5, 127.5, 127.5)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_syntax_colour_meets_4_5_to_1_on_the_editor_its_active_line_and_selection(browser, site_url, scheme):
    context = browser.new_context(viewport=DESKTOP, color_scheme=scheme)
    from conftest import guard

    guard(context)
    try:
        page = context.new_page()
        open_lesson(page, site_url)
        set_code(page, SNIPPET)
        page.keyboard.press("ControlOrMeta+Home")
        page.keyboard.press("Shift+ArrowDown")  # a selection across the active line
        page.keyboard.press("Shift+ArrowDown")
        seen = page.evaluate(COLOURS, "exercise")
        base = rgba(seen["editor"])
        assert base[3] == 1.0, seen["editor"]
        active, selection = over(seen["active"], base), over(seen["selection"], base)
        backgrounds = {
            "editor": base,
            "active line": active,
            "selection": selection,
            "selection on the active line": over(seen["active"], selection),
        }
        worst = {}
        for text, colour in seen["tokens"] + seen["lines"]:
            for name, background in backgrounds.items():
                ratio = contrast(rgba(colour), background)
                if ratio < worst.get(colour, (99,))[0]:
                    worst[colour] = (ratio, text, name)
        gutter = rgba(seen["gutter"])
        for text, colour, background in seen["numbers"]:  # line numbers, the active line's too
            ratio = contrast(rgba(colour), over(background, gutter))
            if ratio < worst.get(colour, (99,))[0]:
                worst[colour] = (ratio, f"line number {text}", "gutter")
        print(f"\n{scheme}: " + ", ".join(f"{c} {r:.2f} ({t!r} on {n})" for c, (r, t, n) in sorted(worst.items())))
        assert len(worst) >= 8, f"the highlighting should colour at least 7 kinds of token: {worst}"
        by_text = dict(seen["tokens"])
        plain = dict(seen["lines"])["import sys  # a comm"]
        for token in (
            "import",
            "# a comment",
            "class",
            "Greeter",
            "greet",
            "42",
            '"x"',
            "True",
            "None",
            "print",
            "upper",
        ):
            assert by_text.get(token, plain) != plain, f"{token!r} is not highlighted"
        low = {c: v for c, v in worst.items() if v[0] < 4.5}
        assert not low, f"below 4.5:1: {low}"
    finally:
        context.close()


# --- keyboard: editors and panels ----------------------------------------------------------------------

FOCUSED = """() => { const e = document.activeElement;
    const editors = [...document.querySelectorAll('.cm-content')];
    return { editor: editors.indexOf(e), label: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30),
             panel: e.dataset.panelBody || null }; }"""


def test_tab_reaches_every_editor_and_each_scrollable_panel(page, site_url):
    open_lesson(page, site_url, HOME)
    page.get_by_test_id("show-solution").first.click()  # a read-only editor
    page.locator("summary", has_text="The checks this lesson runs").click()  # another one
    expect(page.locator(".cell-check .cm-content")).to_have_count(1)
    expect(page.locator(".cell-solution .cm-content")).to_have_count(1)
    expect(page.locator(".code-placeholder")).to_have_count(0)  # every editor made (lazyeditor.js)
    editors = page.locator(".cm-content").count()
    assert editors >= 6
    page.locator(".skip").focus()
    reached, panels = [], set()
    for _ in range(300):
        page.keyboard.press("Tab")
        where = page.evaluate(FOCUSED)
        if where["editor"] >= 0:
            if where["editor"] in reached:
                break
            reached.append(where["editor"])
            page.keyboard.press("Escape")  # then Tab leaves the editor (Tab alone indents)
        elif where["panel"]:
            panels.add(where["panel"])
        elif where["label"] == "Skip to the lesson":
            break
    assert reached == list(range(editors)), f"Tab reached editors {reached} of {editors}, in this order"
    assert "output" in panels  # the Output console scrolls, so it is in the Tab order
    for name in ("trace", "context"):
        page.locator(f".panel-tabs [data-panel={name}]").click()
        for _ in range(3):  # past the other tabs
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.getAttribute('role')") != "tab":
                break
        assert page.evaluate(FOCUSED)["panel"] == name


def scroll_of(page: Page, scroller: str, until: str) -> dict:
    """Wait until the editor's scroller (a CSS selector) meets `until` (a JS condition on `top` and
    `left`: CodeMirror scrolls on its next frame), then return {top, left}. By selector, not by
    position: the lesson's other editors are still being made in idle time (lazyeditor.js)."""
    try:
        wait_until(
            page,
            f"""(q) => {{ const s = document.querySelector(q);
            const top = s.scrollTop, left = s.scrollLeft; return {until}; }}""",
            5_000,
            arg=scroller,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(
            f"the editor's scroll never met {until}: {page.evaluate(SCROLL_STATE, scroller)}"
        ) from None
    return page.evaluate(SCROLL_STATE, scroller)


# Where the editor is scrolled, and what a failed wait needs to tell: what has the focus, where the
# cursor is, the editor's first line drawn.
SCROLL_STATE = """(q) => { const s = document.querySelector(q), a = document.activeElement, c = getSelection();
    return { top: s.scrollTop, left: s.scrollLeft, height: s.scrollHeight, focused: a.className || a.tagName,
             cursor: c.anchorNode ? [c.anchorNode.textContent.slice(0, 20), c.anchorOffset] : null,
             first: (s.querySelector('.cm-line') || {}).textContent?.slice(0, 20) }; }"""


EXERCISE = "[data-testid=editor].cell-exercise .cm-scroller"
CHECKS = ".cell-check .cm-scroller"


def test_keys_scroll_a_long_editor_and_a_read_only_one(browser, site_url):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)  # narrow: long lines overflow
    from conftest import guard

    guard(context)
    try:
        page = context.new_page()
        open_lesson(page, site_url)
        long_code = "x = '" + "wide " * 120 + "'\n" + "\n".join(f"print({i})" for i in range(300))
        cell(page).locator(".cm-content").click()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.insert_text(long_code)  # (the editor draws only the lines in view)
        scroll_of(page, EXERCISE, "top > 0")  # down to the cursor, at the end of what came in
        page.keyboard.press("ControlOrMeta+Home")
        scroll_of(page, EXERCISE, "top === 0 && left === 0")
        page.keyboard.press("End")  # the long first line
        assert scroll_of(page, EXERCISE, "left > 100")["top"] == 0
        page.keyboard.press("PageDown")
        page.keyboard.press("PageDown")
        top = scroll_of(page, EXERCISE, "top > 200")["top"]
        page.keyboard.press("ControlOrMeta+End")
        bottom = scroll_of(page, EXERCISE, f"top > {top}")["top"]
        for _ in range(60):
            page.keyboard.press("ArrowUp")
        scroll_of(page, EXERCISE, f"top < {bottom}")

        # A read-only editor: the lesson's checks (wide enough to scroll sideways on a phone).
        page.locator("summary", has_text="The checks this lesson runs").click()
        expect(page.locator(".cell-check .cm-content")).to_have_count(1)
        page.locator(".cell-check .cm-content").focus()
        assert page.evaluate("() => document.activeElement.getAttribute('aria-readonly')") == "true"
        for _ in range(3):
            page.keyboard.press("ArrowDown")
            page.keyboard.press("End")
        scroll_of(page, CHECKS, "left > 0")
        page.keyboard.press("Tab")  # not trapped: Tab leaves a read-only editor
        assert page.evaluate(FOCUSED)["editor"] == -1
    finally:
        context.close()


# --- what a screen reader hears -----------------------------------------------------------------------

HEARD = """() => { window.__heard = [];
    if (window.__listening) return;
    window.__listening = true;
    const region = document.querySelector('[data-testid=announcer]');
    new MutationObserver(() => { if (region.textContent) window.__heard.push(region.textContent); })
        .observe(region, { childList: true, characterData: true, subtree: true }); }"""


def test_a_run_is_announced_once_in_one_sentence_and_the_output_is_not_a_live_region(page, site_url):
    open_lesson(page, site_url)
    announcer = page.get_by_test_id("announcer")
    expect(announcer).to_have_text(re.compile(r"^Ready, Python 3\.\d+"))  # Python's arrival, once
    # Nothing that fills up during a run is a live region: not the output, not the status line.
    for testid in ("output", "status", "trace", "checks"):
        node = page.get_by_test_id(testid)
        assert node.get_attribute("aria-live") is None and node.get_attribute("role") not in ("log", "status", "alert")
    assert announcer.get_attribute("aria-live") == "polite"

    set_code(page, FAILING + "\nfor i in range(500):\n    print('line', i)")
    page.evaluate(HEARD)
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("line 499")
    expect(announcer).to_have_text(
        re.compile(
            r"^Done in \d+\.\d\d s, E2E fixture: a tiny agent: 1 of 2 checks passed\. Failed: the answer mentions 5\.$"
        )
    )
    page.wait_for_timeout(300)  # nothing more is said after the run
    assert page.evaluate("() => window.__heard") == [announcer.text_content()]

    page.evaluate(HEARD)
    set_code(page, "while True:\n    pass")
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stop")).to_have_attribute("aria-disabled", "false")
    page.get_by_test_id("stop").click()
    wait_run_end(page, timeout=10_000)
    expect(announcer).to_have_text(re.compile(r"^Stopped E2E fixture: a tiny agent after \d+\.\d\d s\.$"))
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__heard") == [announcer.text_content()]


def test_run_stop_reset_and_the_model_toggle_say_their_state(page, site_url):
    page.goto(f"{site_url}#/{FIXTURE}")
    run_button = page.get_by_role("button", name="Run", exact=True)
    stop_button = page.get_by_role("button", name="Stop", exact=True)
    expect(run_button).to_have_attribute("aria-disabled", "true")  # Python is loading
    wait_ready(page, FIXTURE)
    expect(run_button).to_have_attribute("aria-disabled", "false")
    expect(stop_button).to_have_attribute("aria-disabled", "true")
    expect(page.get_by_role("button", name="Reset", exact=True)).to_be_enabled()

    # A keyboard user's focus stays on the button they pressed, though it stops working.
    set_code(page, "while True:\n    pass")
    run_button.focus()
    page.keyboard.press("Enter")
    expect(stop_button).to_have_attribute("aria-disabled", "false")
    expect(run_button).to_have_attribute("aria-disabled", "true")
    expect(run_button).to_be_focused()
    page.keyboard.press("Enter")  # a press on a Run that cannot work does nothing
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "running")
    stop_button.focus()
    page.keyboard.press("Enter")
    wait_run_end(page, timeout=10_000)
    expect(stop_button).to_have_attribute("aria-disabled", "true")
    expect(stop_button).to_be_focused()

    # The model is a choice of three, a select named "Model" whose value says which.
    toggle = page.get_by_role("combobox", name="Model", exact=True)
    expect(toggle).to_have_value("scripted")
    assert toggle.evaluate("(e) => [...e.options].map((o) => o.value)") == ["scripted", "local", "live"]
    toggle.focus()
    toggle.select_option("live")
    expect(toggle).to_have_value("live")
    expect(page.get_by_test_id("model-toggle")).to_have_attribute("data-mode", "live")
    expect(toggle).to_be_focused()
    toggle.select_option("scripted")
    expect(page.get_by_test_id("model-toggle")).to_have_attribute("data-mode", "scripted")

    page.set_viewport_size(PHONE)  # the phone hides the word "Model", but not from the select's name
    expect(page.get_by_role("combobox", name="Model", exact=True)).to_be_visible()
    assert page.locator(".model-choice > .label").evaluate("(e) => e.getBoundingClientRect().width") <= 1


def test_focus_returns_to_the_control_that_opened_a_dialog(page, site_url):
    open_lesson(page, site_url)
    settings = page.get_by_test_id("settings")
    settings.click()
    dialog = page.locator("dialog.settings-dialog")
    expect(dialog).to_be_visible()
    assert page.evaluate("() => !!document.activeElement.closest('dialog')")  # focus moved into it
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(settings).to_be_focused()
    settings.click()
    dialog.locator("input[name=model]").press("Enter")  # saved and closed
    expect(dialog).to_be_hidden()
    expect(settings).to_be_focused()

    help_button = page.locator("[data-role=help]")
    help_button.click()
    page.locator("dialog.help-dialog").get_by_role("button", name="Close").click()
    expect(help_button).to_be_focused()
    page.get_by_test_id("run").focus()
    page.keyboard.press("?")  # the shortcut, from wherever the learner is
    expect(page.locator("dialog.help-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("run")).to_be_focused()


def test_pass_and_fail_are_said_in_words_and_shapes_not_colour_alone(page, site_url):
    open_lesson(page, site_url)
    set_code(page, FAILING + "\nimport sys\nprint('oops', file=sys.stderr)")
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, False]
    items = page.locator("[data-testid=checks] li.check")
    expect(items.nth(0)).to_have_text(re.compile(r"^✓\s*passed: the run stopped"))
    expect(items.nth(1)).to_have_text(re.compile(r"^✗\s*failed: the answer mentions 5"))
    expect(page.get_by_test_id("checks")).to_contain_text("1 of 2 checks passed")
    expect(page.get_by_test_id("status")).to_contain_text("1 of 2 checks passed")
    item = page.locator(f'[data-testid=lesson-list] li[data-slug="{FIXTURE}"] a')
    expect(item.locator(".mark")).to_have_text("✗ •")
    expect(item).to_have_attribute("title", re.compile("not all checks pass yet"))
    # Error output is marked by a bar beside it as well as its colour.
    stderr = page.get_by_test_id("output").locator(".out-stderr").first
    expect(stderr).to_contain_text("oops")
    assert stderr.evaluate("(e) => parseFloat(getComputedStyle(e).borderLeftWidth)") >= 1
    assert (
        page.get_by_test_id("output")
        .locator(".out-stdout")
        .first.evaluate("(e) => parseFloat(getComputedStyle(e).borderLeftWidth)")
        == 0
    )


# --- long output ------------------------------------------------------------------------------------

CUT = "\n… output cut here: more than 200,000 characters\n"


@pytest.mark.parametrize(
    ("code", "printed"),
    [
        ("for i in range(200_000):\n    print(i)", "".join(f"{i}\n" for i in range(200_000))),
        ('print("x" * 5_000_000)', "x" * 200_000),
    ],
    ids=["200000 lines", "one 5 MB line"],
)
def test_a_flood_is_drawn_in_pieces_whole_and_in_order_up_to_the_cut(page, site_url, code, printed):
    open_lesson(page, site_url)
    set_code(page, code)
    run(page)
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("output cut here")
    expected = ("hello from the lesson\n" + printed)[:200_000] + CUT
    assert output.evaluate("(e) => e.textContent") == expected
    assert output.inner_text() == expected  # as read and copied: the boxes add no line breaks
    boxes = output.locator(".out-chunk")
    assert boxes.count() >= 25  # 4,000 to 8,000 characters each (a long line fills a box to 8,000)
    lengths = boxes.evaluate_all("(all) => all.map((b) => b.textContent.length)")
    assert max(lengths) <= 8_000 + len(CUT)
