"""The red team's attacks on the learner's key, as tests (issue 36): Python from a share link tries to
obtain the key, or to use it outside a live run or the endpoint's prefix, in Chromium with live
mode on and a key set. Each attack comes in two forms:

- never clicked: the link's code runs on the scripted model (the banner is never clicked), then
  the learner brings their own edits back and runs them live;
- clicked: the learner chooses to run the link's code with their live model, then brings their own
  edits back and runs them live.

The attacker wins when the key appears in any request's path or body (the endpoint's, the site's:
its server's log), in a header sent anywhere but the endpoint's prefix, in the output, the page,
the console, or any string the link's Python could read (it prints what it read reversed, past the
output's mask). Every test also checks the lesson still works live: the endpoint gets its requests
with the key and the checks pass.

Written with page actions and the servers' records only, so that other engines can run it too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from attack import (
    FORGED_KEPT,
    HEADERS,
    HOOKS_JS,
    JS_HOOKS,
    JS_HOOKS_REPORT,
    LEFTOVERS,
    MINED,
    OUTSIDE_PATHS,
    PREFIX,
    PY_HOOKS,
    PY_TARGETS,
    SEEN,
    TIMER,
)
from browser import PlainServer, SiteServer
from conftest import PLAIN, guard
from fakeserver import chat_call, chat_text
from leaks import KEY, OTHER_KEY, found, keyed_outside, lesson_calls_keyed
from learner import FIXTURE, code_of, configure_live, open_lesson, run, set_code, set_mode, wait_ready
from test_key import exercise_source, lesson_of, share_link

FORMS = ["never-clicked", "clicked"]
LESSON_02 = "02-tools"

# --- the site, with its server's log, and what the attacker may have left anywhere ----------------


@pytest.fixture
def site(site_dir):
    """The site served as this run serves it, with its request log kept (`log_text()`)."""
    server = PlainServer(site_dir) if PLAIN else SiteServer(site_dir, log=True)
    server.log_text = lambda: server.log.read_text(errors="replace")
    yield server
    server.stop()


@pytest.fixture
def console(page):
    """Every console line of the page and its workers."""
    lines = []
    page.on("console", lambda message: lines.append(message.text))
    return lines


def leaks(key: str, fake, site, page, console) -> list[str]:
    """Where the key was found (leaks.py); [] when nowhere."""
    places = {
        "the site's log": site.log_text(),
        "the output": page.get_by_test_id("output").inner_text(),
        "the page": page.content(),
        "the console": "\n".join(console),
    }
    return found(key, fake.requests, places)


# --- what the learner does ------------------------------------------------------------------------


def live_page(page, site, fake, key: str = KEY) -> None:
    open_lesson(page, site.url)
    configure_live(page, fake.url, key=key)
    set_mode(page, "live")


def script_lesson(fake) -> None:
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."), path="/v1/chat/completions")


def open_link(page, site, site_dir, code: str, slug: str = FIXTURE) -> None:
    page.goto(share_link(site.url, site_dir, code, slug))
    wait_ready(page, slug)
    expect(page.get_by_test_id("foreign-code")).to_have_attribute("data-from", "link")


def run_link(page, fake, form: str) -> list:
    """Run the link's code: on the scripted model (never clicked: nothing reaches the endpoint), or
    with the live model the learner chose for it."""
    if form == "clicked":
        page.get_by_test_id("foreign-code").get_by_role("button", name="Run it with my live model").click()
        expect(page.get_by_test_id("foreign-code")).to_have_count(0)
        script_lesson(fake)
        return run(page)
    before = len(fake.requests)
    results = run(page)
    assert [r.headers.get("authorization") for r in fake.requests[before:]] == [None] * (
        len(fake.requests) - before
    )  # scripted: nothing the link sent carried a key
    return results


def attacked(page, site, site_dir, fake, form: str, payload: str, **more) -> list:
    """The learner, live with a key, opens a link carrying `payload` and runs it (`form`); its checks."""
    live_page(page, site, fake)
    open_link(page, site, site_dir, link_code(payload, site, fake, site_dir, **more))
    return run_link(page, fake, form)


def bring_back(page) -> None:
    page.locator("[data-role=restore-edits]").click()
    expect(page.locator("[data-role=aside-note]")).to_contain_text("Your own edits are back")
    expect(page.get_by_test_id("foreign-code")).to_have_count(0)
    wait_ready(page)


def own_live_run(page, fake, key: str = KEY) -> list[str]:
    """The learner's own code, live: what went wrong, [] when the checks pass and the endpoint got
    both calls with the key (a list, so that a test reports it beside any leak)."""
    script_lesson(fake)
    before = len(fake.posts("/v1/chat/completions"))
    results = run(page)
    problems = lesson_calls_keyed(fake.posts("/v1/chat/completions")[before:], key)
    if [ok for ok, _, _ in results] != [True, True]:
        problems.insert(0, f"the lesson's checks, live: {results}")
    return problems


def after_a_while(page) -> None:
    page.wait_for_timeout(1500)  # timers the link left, and what went out asynchronously, have their turn


def verdict(page, fake, site, console, problems: list[str], keys=(KEY,), then=lambda: []) -> list[str]:
    """After a while: every place the key was found, then every other problem (and what `then()`
    finds by then); [] when the attack failed."""
    after_a_while(page)
    return [found for key in keys for found in leaks(key, fake, site, page, console)] + problems + then()


def link_code(attack: str, site, fake, site_dir, slug: str = FIXTURE, tail: str = "", **more) -> str:
    values = {"base": fake.url, "site": site.url, **more}
    return attack % values + exercise_source_of(site_dir, slug) + tail + SEEN


def exercise_source_of(site_dir, slug: str) -> str:
    if slug == FIXTURE:
        return exercise_source(site_dir)
    lesson, _ = lesson_of(site_dir, slug)
    return next(c["source"] for c in lesson["cells"] if c["role"] == "exercise")


# --- 1. the headers object, read through its iterator ----------------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_headers_read_through_their_iterator_never_show_the_key(page, site, site_dir, fake, console, form):
    results = attacked(page, site, site_dir, fake, form, HEADERS)
    expect(page.get_by_test_id("output")).to_contain_text("headers hooked")
    if form == "clicked":  # the link's code ran live, as chosen: the endpoint got its calls with the key
        assert [ok for ok, _, _ in results] == [True, True], results
        models = [r for r in fake.requests if r.path == "/v1/models"]
        assert [r.headers.get("authorization") for r in models] == [f"Bearer {KEY}"] * 2  # send_async, open_stream
    bring_back(page)
    assert verdict(page, fake, site, console, own_live_run(page, fake)) == []


# --- 2. what the link's code leaves behind ---------------------------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_nothing_the_links_code_leaves_behind_reaches_a_run_with_the_key(page, site, site_dir, fake, console, form):
    attacked(page, site, site_dir, fake, form, LEFTOVERS)
    if form == "clicked":
        expect(page.get_by_test_id("output")).to_contain_text("PATCHED BY THE LINK")  # its own run used its patch
    bring_back(page)
    problems = own_live_run(page, fake)
    said = page.get_by_test_id("output").inner_text()
    if "PATCHED BY THE LINK" in said or "the link's global" in said:
        problems.append("the link's patched module and global were still there: " + said[-800:])
    assert verdict(page, fake, site, console, problems) == []


# --- 3. mine(N) never carries the link's code -------------------------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_mine_never_runs_a_links_code_for_lesson_02_in_a_live_run(page, site, site_dir, fake, console, form):
    live_page(page, site, fake)
    open_link(page, site, site_dir, link_code(MINED, site, fake, site_dir, LESSON_02), LESSON_02)
    if form == "clicked":  # chosen for lesson 02, and run there with the key
        page.get_by_test_id("foreign-code").get_by_role("button", name="Run it with my live model").click()
        run(page)
    open_lesson(page, site.url)  # the learner's own lesson 90, which reuses lesson 02
    set_code(page, "from looplab import mine\nmine(2)\n" + code_of(page))
    before = len(fake.requests)
    problems = own_live_run(page, fake)
    during = [r.path for r in fake.requests[before:] if r.path != "/v1/chat/completions"]
    if during:  # /v1/from-link, /v1/models: the link's code ran inside the live run
        problems.append(f"the link's code made requests in the live run: {during}")
    said = page.get_by_test_id("output").inner_text()
    line = next((x for x in said.splitlines() if x.startswith("From lesson 02:")), "")
    if not ("the reference solution" in line and "came from a link" in line):
        problems.append(f"mine(2) said: {line!r}")
    assert verdict(page, fake, site, console, problems) == []


# --- 4. the transport's live flag is off outside a live run -----------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_a_timer_the_link_left_never_sends_the_key(page, site, site_dir, fake, console, form):
    attacked(page, site, site_dir, fake, form, TIMER)
    problems = []
    if form == "clicked":  # the link's worker lives on after its live run: its timer goes on, keyless
        mark = len(fake.requests)
        after_a_while(page)
        ticks = [r.headers.get("authorization") for r in fake.requests[mark:] if r.path == "/v1/timer"]
        assert len(ticks) >= 2, ticks  # (the timer goes on: what this checks is there)
        if set(ticks) != {None}:
            problems.append(f"after the link's live run its timer's requests carried {set(ticks)}")
    bring_back(page)
    mark = len(fake.requests)
    problems += own_live_run(page, fake)

    def ticks():
        since = [r.headers.get("authorization") for r in fake.requests[mark:] if r.path == "/v1/timer"]
        ever = {r.headers.get("authorization") for r in fake.requests if r.path == "/v1/timer"} - {None}
        return [f"the link's timer went on in the learner's own runs: {len(since)} requests, {set(since)}"] * bool(
            since  # (it is gone with its worker)
        ) + [f"the link's timer used the key: {ever}"] * bool(ever and form == "never-clicked")

    assert verdict(page, fake, site, console, problems, then=ticks) == []


# --- 5. the prefix holds ------------------------------------------------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_no_key_leaves_the_prefix_by_encoded_paths_or_redirects(page, site, site_dir, fake, console, form):
    fake.script(*[{"status": 307, "headers": {"Location": "/outside-redirect"}, "json": {}}] * 8, path="/v1/redirect")
    attacked(page, site, site_dir, fake, form, PREFIX, paths=repr(OUTSIDE_PATHS))
    expect(page.get_by_test_id("output")).to_contain_text("PREFIX {")
    tried = {r.path for r in fake.requests}
    assert "/v1/redirect" in tried and {"/v1/..%2Foutside-a", "/v1/%2e%2e%2foutside-c"} <= tried, sorted(tried)
    bring_back(page)
    problems = own_live_run(page, fake)

    assert verdict(page, fake, site, console, problems, then=lambda: keyed_outside(fake.requests)) == []


# --- hooks on every built-in the keyed path uses ------------------------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_python_hooks_on_the_built_ins_of_the_keyed_path_never_see_the_key(page, site, site_dir, fake, console, form):
    results = attacked(page, site, site_dir, fake, form, PY_HOOKS, targets=repr(PY_TARGETS))
    said = page.get_by_test_id("output").inner_text()
    hooked = re.search(r"hooked (\d+) built-ins from Python", said)
    assert hooked and int(hooked[1]) >= 70 and "not hooked: none" in said, said[-3000:]
    if form == "clicked":
        assert [ok for ok, _, _ in results] == [True, True], results  # the lesson still works under the hooks
    bring_back(page)
    assert verdict(page, fake, site, console, own_live_run(page, fake)) == []


@pytest.mark.parametrize("form", FORMS)
def test_javascript_hooks_on_every_built_in_never_see_the_key(browser, site_dir, fake, form):
    # A host that sends no policy and where no service worker runs: Python can write JavaScript.
    server = PlainServer(site_dir)
    server.log_text = lambda: server.log.read_text(errors="replace")
    context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 800})
    guard(context)
    page = context.new_page()
    lines = []
    page.on("console", lambda message: lines.append(message.text))
    try:
        source = HOOKS_JS.replace("__BASE__", fake.url).replace("__SITE__", server.url)
        results = attacked(page, server, site_dir, fake, form, JS_HOOKS, source=source, tail=JS_HOOKS_REPORT)
        said = page.get_by_test_id("output").inner_text()
        assert "NO TEXT AS CODE" not in said, said[-1500:]
        hooked = re.search(r"hooked (\d+) built-ins in JavaScript", said)
        assert hooked and int(hooked[1]) >= 300, said[-3000:]
        assert int(re.search(r"JS HOOKS SAW (\d+) strings", said)[1]) > 100
        if form == "clicked":
            assert [ok for ok, _, _ in results] == [True, True], results
        bring_back(page)
        problems = own_live_run(page, fake)
        assert verdict(page, fake, server, lines, problems) == []
    finally:
        context.close()
        server.stop()


# --- the page trusts only the messages it asked for -------------------------------------------------


@pytest.mark.plain_host
@pytest.mark.parametrize("form", FORMS)
def test_a_forged_kept_message_never_reaches_a_later_worker(page, site, site_dir, fake, console, form):
    attacked(page, site, site_dir, fake, form, FORGED_KEPT)
    expect(page.get_by_test_id("output")).to_contain_text("forged kept posted")
    bring_back(page)
    problems = own_live_run(page, fake)
    configure_live(page, fake.url, key=OTHER_KEY)  # a new key: a new worker, from what the page kept
    expect(page.get_by_test_id("status")).to_contain_text(re.compile("Ready|could not|failed"), timeout=60_000)
    status = page.get_by_test_id("status").inner_text()
    if "could not be loaded" in status or "refused" in status:
        problems.append(f"the next worker started from the forged parts: {status}")
    else:
        problems += own_live_run(page, fake, OTHER_KEY)
    assert verdict(page, fake, site, console, problems, (KEY, OTHER_KEY)) == []


def test_the_attack_code_is_the_red_teams():
    """The payloads parse as Python once formatted (a broken payload would prove nothing)."""
    values = {"base": "http://h/v1", "site": "http://s/", "paths": repr(OUTSIDE_PATHS), "targets": repr(PY_TARGETS)}
    for attack in (HEADERS, LEFTOVERS, MINED, TIMER, PREFIX, PY_HOOKS, FORGED_KEPT):
        compile(attack % values + SEEN, "<link>", "exec")
    compile(JS_HOOKS % {**values, "source": HOOKS_JS} + JS_HOOKS_REPORT + SEEN, "<link>", "exec")
    assert Path(__file__).with_name("attack.py").exists()
