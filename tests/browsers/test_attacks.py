"""The red team's attacks on the learner's key (tests/e2e/test_attacks.py, issue 36) in Firefox ESR
and WebKit: Python from a share link tries to obtain the key, or to use it outside a live run or the
endpoint's prefix. The payloads are attack.py's and what counts as the attacker's win is leaks.py's,
as in the Chromium suite; here the attacks share one page, one after another, as a learner who
opens one link after another would (each link run, then "Bring back my own edits", then the
learner's own live run), so that each engine loads Python once for them all.

- never clicked: every link runs on the scripted model; the learner's own live runs follow;
- clicked: the learner runs the links that use the key themselves with their live model (the
  headers read through their iterator, a timer left behind, paths and a redirect out of the
  prefix), then their own code live.

Chromium runs these in tests/e2e/test_attacks.py, with a page and a test of their own for each.
"""

from __future__ import annotations

import time

import pytest

from anyengine import (
    FIXTURE,
    attribute,
    click_text,
    configure_live,
    open_lesson,
    output,
    run,
    set_code,
    set_mode,
    status,
    tid,
    wait_ready,
    wait_text,
)
from attack import FORGED_KEPT, HEADERS, LEFTOVERS, MINED, OUTSIDE_PATHS, PREFIX, PY_HOOKS, PY_TARGETS, SEEN, TIMER
from browser import SiteServer
from fakeserver import chat_call, chat_text
from leaks import KEY, OTHER_KEY, found, keyed_outside, lesson_calls_keyed
from test_path import lesson_json, share_link

LESSON_02 = "02-tools"
REDIRECT = {"status": 307, "headers": {"Location": "/outside-redirect"}, "json": {}}
NEVER_CLICKED = [
    ("the headers read through their iterator", HEADERS),
    ("what the link's code leaves behind", LEFTOVERS),
    ("a timer the link left", TIMER),
    ("paths and a redirect out of the prefix", PREFIX),
    ("hooks from Python on the keyed path's built-ins", PY_HOOKS),
    ("a forged kept message", FORGED_KEPT),
]
CLICKED = [
    ("the headers read through their iterator", HEADERS),
    ("a timer the link left", TIMER),
    ("paths and a redirect out of the prefix", PREFIX),
]


@pytest.fixture
def site(site_dir):
    """The site as `make serve` serves it, its request log kept: a key in a path the site was asked for shows there."""
    server = SiteServer(site_dir, log=True)
    yield server
    server.stop()


def exercise_of(site_dir, slug: str = FIXTURE) -> str:
    return next(c["source"] for c in lesson_json(site_dir, slug)[0]["cells"] if c["role"] == "exercise")


def link_code(payload: str, site, fake, site_dir, slug: str = FIXTURE) -> str:
    values = {"base": fake.url, "site": site.url, "paths": repr(OUTSIDE_PATHS), "targets": repr(PY_TARGETS)}
    return payload % values + exercise_of(site_dir, slug) + SEEN


def script_lesson(fake) -> None:
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."), path="/v1/chat/completions")


def open_link(tab, site, site_dir, code: str, slug: str = FIXTURE) -> None:
    tab.goto(share_link(site.url, site_dir, code, slug))
    wait_ready(tab, slug)
    tab.wait(
        "() => document.querySelector('[data-testid=foreign-code]')?.dataset.from === 'link'", what="the link's banner"
    )


def bring_back(tab) -> None:
    tab.click("[data-role=restore-edits]")
    wait_text(tab, "[data-role=aside-note]", "Your own edits are back")
    tab.wait("() => !document.querySelector('[data-testid=foreign-code]')", what="the banner to go")
    wait_ready(tab)


def own_live_run(tab, fake, key: str = KEY) -> list[str]:
    """The learner's own code, live: what went wrong; [] when the checks pass and the endpoint got both calls with the key."""
    script_lesson(fake)
    before = len(fake.posts("/v1/chat/completions"))
    results = run(tab, timeout=120_000)
    problems = lesson_calls_keyed(fake.posts("/v1/chat/completions")[before:], key)
    if [ok for ok, _, _ in results] != [True, True]:
        problems.insert(0, f"the lesson's checks, live: {results} {output(tab)[-600:]}")
    said = output(tab)
    if "PATCHED BY THE LINK" in said or "the link's global" in said:
        problems.append("the link's patched module or global was still there: " + said[-600:])
    return problems


def after_a_while(tab) -> None:
    tab.js("() => new Promise((r) => setTimeout(r, 1500))")  # timers the link left have their turn


def leaks(tab, fake, site, keys=(KEY,)) -> list[str]:
    places = {
        "the site's log": site.log.read_text(errors="replace"),
        "the output": output(tab),
        "the page": tab.js("() => document.documentElement.outerHTML"),
        "the console": "\n".join(getattr(tab, "console", [])),
    }
    return [where for key in keys for where in found(key, fake.requests, places)]


def go_live(tab, site, fake, key: str = KEY) -> None:
    """The learner, live with a key; the endpoint's /v1/redirect answers 307 to /outside-redirect (PREFIX)."""
    fake.script(*[REDIRECT] * 8, path="/v1/redirect")
    open_lesson(tab, site.url)
    configure_live(tab, fake.url, key=key)
    set_mode(tab, "live")
    wait_ready(tab)


@pytest.mark.engines("firefox", "webkit")  # Chromium: tests/e2e/test_attacks.py
def test_links_run_on_the_scripted_model_never_reach_the_key(engine, tab, site, site_dir, fake):
    go_live(tab, site, fake)
    problems = []
    for name, payload in NEVER_CLICKED:
        open_link(tab, site, site_dir, link_code(payload, site, fake, site_dir))
        before = len(fake.requests)
        started = time.monotonic()
        results = run(tab, timeout=180_000)
        print(
            f"{tab.engine}: {name}: the link's run {time.monotonic() - started:.1f} s, {status(tab)['text']!r} {results}"
        )
        keyed = [r.path for r in fake.requests[before:] if r.headers.get("authorization")]
        problems += [f"{name}: the link's scripted run sent a key to {keyed}"] * bool(keyed)
        said = output(tab)
        if payload is PREFIX:  # (the attack did what it says: these reached the endpoint's origin)
            assert "PREFIX {" in said and "/v1/redirect" in {r.path for r in fake.requests}, said[-1500:]
        if payload is PY_HOOKS:
            assert "not hooked: none" in said, said[-1500:]
        bring_back(tab)
        problems += [f"{name}: {p}" for p in own_live_run(tab, fake)]

    configure_live(tab, fake.url, key=OTHER_KEY)  # a new key: a new worker, from what the page kept (forged kept?)
    wait_ready(tab)
    shown = status(tab)["text"]
    if "could not be loaded" in shown or "refused" in shown:
        problems.append(f"the next worker started from the forged parts: {shown}")
    problems += own_live_run(tab, fake, OTHER_KEY)

    # mine(2) in the learner's own live run, where lesson 02's saved code came from a link
    open_link(tab, site, site_dir, link_code(MINED, site, fake, site_dir, LESSON_02), LESSON_02)
    open_lesson(tab, site.url)
    set_code(tab, "from looplab import mine\nmine(2)\n" + exercise_of(site_dir))  # the learner's own, reusing 02
    before = len(fake.requests)
    problems += own_live_run(tab, fake, OTHER_KEY)
    during = [r.path for r in fake.requests[before:] if r.path != "/v1/chat/completions"]
    problems += [f"mine(2): the link's code made requests in the live run: {during}"] * bool(during)
    line = next((x for x in output(tab).splitlines() if x.startswith("From lesson 02:")), "")
    if not ("the reference solution" in line and "came from a link" in line):
        problems.append(f"mine(2) said: {line!r}")

    after_a_while(tab)
    timer = {r.headers.get("authorization") for r in fake.requests if r.path == "/v1/timer"} - {None}
    problems += [f"the link's timer used a key: {timer}"] * bool(timer)
    assert leaks(tab, fake, site, (KEY, OTHER_KEY)) + problems + keyed_outside(fake.requests) == []


@pytest.mark.engines("firefox", "webkit")
def test_links_run_with_the_live_model_never_leak_the_key_or_send_it_elsewhere(engine, tab, site, site_dir, fake):
    go_live(tab, site, fake)
    problems = []
    for name, payload in CLICKED:
        open_link(tab, site, site_dir, link_code(payload, site, fake, site_dir))
        click_text(tab, f"{tid('foreign-code')} button", "Run it with my live model")
        tab.wait("() => !document.querySelector('[data-testid=foreign-code]')", what="the banner to go")
        script_lesson(fake)
        results = run(tab, timeout=180_000)
        if payload is not PREFIX and [ok for ok, _, _ in results] != [
            True,
            True,
        ]:  # (PREFIX reroutes the lesson's calls)
            problems.append(f"{name}: the link's live run: {results} {output(tab)[-600:]}")
        mark = len(fake.requests)
        after_a_while(tab)
        late = [r.path for r in fake.requests[mark:] if r.headers.get("authorization")]
        problems += [f"{name}: after the link's live run ended, a key went to {late}"] * bool(late)
        bring_back(tab)
        problems += [f"{name}: {p}" for p in own_live_run(tab, fake)]
    tried = {r.path for r in fake.requests}
    assert "/v1/timer" in tried and "/outside-f" in tried, sorted(tried)  # the attacks did what they say
    redirected = {r.headers.get("authorization") for r in fake.requests if r.path == "/v1/redirect"}
    assert f"Bearer {KEY}" in redirected, redirected  # the redirect was asked for with the key: it must go no further
    after_a_while(tab)
    assert leaks(tab, fake, site) + problems + keyed_outside(fake.requests) == []
    assert attribute(tab, tid("foreign-code"), "data-from") is None
