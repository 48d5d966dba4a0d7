"""Journeys: long single visits that do what a learner does in sequence — lessons, tabs, Settings,
model switches, Stop, Reset, reloads and a live endpoint (tests/fakeserver.py, streaming slowly) —
each ending with a check that the next Run, chat turn and input() still work. Flows started fresh
never find what is left over from the step before; these do (issue 37)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from fakeserver import chat_call, chat_text
from learner import (
    FIXTURE,
    checks,
    configure_live,
    open_lesson,
    put_solutions,
    set_code,
    set_mode,
    start_run,
    status,
    stop_kept_python,
    wait_ready,
    wait_run_end,
)

FIFTEEN = "15-the-whole-thing"
ONE = "01-agent-or-workflow"
CHAT = "94-e2e-chat"  # tests/e2e/fixtures/94-e2e-chat.py: "You said: …" offline, the endpoint live
TURN_MS = 60_000  # a chat turn ends within a lesson run's bounds: an answer, a stop or a sentence why not
SLOW = {"split": 3, "chunk_delay": 0.3}  # a reply in slow pieces: "echo: hello agent" comes in 8
ASKS = 'name = input("Your name? ")\nprint(f"hello {name}")\n'


@pytest.fixture
def visit(context):
    """One tab for the whole journey. Reset's confirm is answered OK, unless `visit.cancel` is set
    for the next one (the learner thinks better of it)."""
    page = context.new_page()
    answers = []
    page.on("dialog", lambda dialog: dialog.dismiss() if answers and answers.pop() else dialog.accept())
    page.cancel_next_confirm = lambda: answers.append(True)
    yield page


def panel(page: Page, name: str):
    return page.locator(f".panel-tabs [data-panel={name}]")


def open_chat(page: Page) -> None:
    panel(page, "chat").click()
    expect(page.get_by_test_id("chat-input")).to_be_focused()


def replies(page: Page):
    return page.locator("[data-testid=chat-turn][data-role=assistant]:not([data-state=pending])")


def send(page: Page, text: str) -> int:
    """Type a message and press Enter; the number of replies before it."""
    before = replies(page).count()
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")
    return before


def say(page: Page, text: str):
    """Send a message and wait for its turn to end (an answer, a stop or a note); the newest reply."""
    before = send(page, text)
    expect(replies(page)).to_have_count(before + 1, timeout=TURN_MS)
    return replies(page).last


def passes(page: Page) -> bool:
    """Run the lesson on screen: whether it shows checks and every one passed."""
    page.get_by_test_id("run").click()
    wait_run_end(page)
    shown = checks(page)
    return bool(shown) and all(c.ok for c in shown)


def go(page: Page, slug: str) -> None:
    """Open another lesson as the lesson list does: the address changes."""
    page.evaluate("slug => { location.hash = '#/' + slug; }", slug)
    wait_ready(page, slug)


def asked_here(page: Page, where: str, prompt: str = "Your name?"):
    """Python asks: the field is where the learner looks (`where`: "output" or "chat"), in front,
    focused, and the status line says Python waits for an answer. Returns the field."""
    field = page.get_by_test_id("stdin")
    expect(field).to_be_focused(timeout=30_000)
    expect(panel(page, where)).to_have_attribute("aria-selected", "true")
    inside = "[data-testid=output]" if where == "output" else "[data-testid=chat-turn][data-state=pending]"
    expect(page.locator(f"{inside} [data-testid=stdin]")).to_be_visible()
    expect(page.locator(inside)).to_contain_text(prompt)
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "asking")
    expect(page.get_by_test_id("status")).to_contain_text(f"waiting for your answer: “{prompt}”")
    return field


def answer(page: Page, text: str, where: str = "output") -> None:
    field = asked_here(page, where)
    field.fill(text)
    field.press("Enter")
    expect(page.get_by_test_id("status")).not_to_have_attribute("data-state", "asking")


def still_works(page: Page, *, chat: str, reply: str | re.Pattern, lesson: str = FIXTURE) -> None:
    """The end of every journey: the next Run, chat turn and input() all work."""
    go(page, lesson)
    panel(page, "output").click()
    set_code(page, ASKS, role="code")
    start_run(page)
    answer(page, "Ada")
    wait_run_end(page)
    expect(page.get_by_test_id("output")).to_contain_text("hello Ada")
    page.get_by_test_id("reset").click()
    expect(page.get_by_test_id("output")).to_contain_text("hello Ada")  # (Reset keeps the output)
    page.get_by_test_id("run").click()
    wait_run_end(page)
    assert checks(page) and all(c.ok for c in checks(page)), checks(page)
    open_chat(page)
    turn = say(page, chat)
    expect(turn.locator(".chat-text")).to_have_text(reply)


def test_journey_2_a_live_chat_after_chats_input_stop_and_reset_streams_and_ends(visit, site_url, fake):
    """Issue 37 (2): the live turn stayed "…" for more than a minute; the header said "scripted".
    The cause: a chat turn runs the lesson's code first when it changed (quietly), and an input()
    the learner had left in it asked in the Output panel, hidden behind the Chat tab."""
    page = visit
    open_lesson(page, site_url, FIFTEEN)  # lesson 15 solved, three scripted turns
    put_solutions(page)
    open_chat(page)
    for text in ("remember my name is Alice, then add 10 and 5", "what is my name?", "delete the database"):
        say(page, text)
    go(page, ONE)  # lesson 01, the Chat tab still open: the learner tries input() in its first cell
    first = page.locator('[data-testid="editor"].cell-code').first.locator(".cm-content").inner_text()
    set_code(page, ASKS + first, role="code")
    start_run(page)
    answer(page, "Alice")  # asked in the Output panel, brought forward from behind the Chat tab
    wait_run_end(page)
    expect(page.get_by_test_id("output")).to_contain_text("Your name? Alice\nhello Alice")
    start_run(page)
    asked_here(page, "output")
    stop_kept_python(page)  # Stop while it asks
    page.cancel_next_confirm()
    page.get_by_test_id("reset").click()  # Reset, and Cancel: the input() stays in the lesson's code
    fake.streaming = SLOW  # Settings: an endpoint that streams slowly; the model toggle: live
    configure_live(page, fake.url, model="slow-model")
    set_mode(page, "live")
    wait_ready(page)
    put_solutions(page)
    open_chat(page)
    who = page.locator("[data-role=chat-who]")
    expect(who).to_have_text("Talking to the lesson's agent · live model slow-model")

    send(page, "hello agent")  # the changed code runs first, and its input() asks in the turn
    answer(page, "Bob", where="chat")
    expect(replies(page)).to_have_count(1, timeout=TURN_MS)
    turn = replies(page).last
    expect(turn.locator(".chat-text")).to_have_text("echo: hello agent")  # the agent's reply alone
    assert turn.get_attribute("data-stopped") == "final"
    assert status(page)["text"].startswith("The agent replied"), status(page)
    assert fake.posts("/v1/chat/completions")[-1].body["messages"][-1]["content"] == "hello agent"
    turn.locator(".chat-printed summary").click()
    expect(turn.locator(".chat-printed")).to_contain_text("Your name? Bob")
    expect(who).to_have_text("Talking to ask · live model slow-model")

    fake.streaming = {}
    still_works(page, chat="hi there", reply="echo: hi there", lesson=CHAT)


def first_code(page: Page) -> str:
    return page.locator('[data-testid="editor"].cell-code').first.locator(".cm-content").inner_text()


def listen_to_announcer(page: Page) -> list[str]:
    """What the screen reader's live region says, as it says it."""
    heard: list[str] = []
    page.expose_function("heard", lambda text: heard.append(text))
    page.evaluate("""() => new MutationObserver(() => {
        const text = document.querySelector('[data-testid=announcer]').textContent;
        if (text) window.heard(text);
    }).observe(document.querySelector('[data-testid=announcer]'), { childList: true, characterData: true, subtree: true })""")
    return heard


def test_journey_1_input_asks_where_the_learner_looks_from_every_tab(visit, site_url):
    """Issue 37 (1): with the Chat, Trace or Context tab open, input() asked behind it, the status
    said "Running…", and nothing told the learner that Python waited for them."""
    page = visit
    open_lesson(page, site_url, FIFTEEN)  # after talking to lesson 15's agent, the Chat tab open
    put_solutions(page)
    open_chat(page)
    say(page, "what is my name?")
    heard = listen_to_announcer(page)
    set_code(page, ASKS + first_code(page), role="code")
    for tab in ("chat", "trace", "context"):
        panel(page, tab).click()
        start_run(page)
        answer(page, tab)  # the Output panel came forward, the field has the focus
        wait_run_end(page)
        expect(page.get_by_test_id("output")).to_contain_text(f"Your name? {tab}\nhello {tab}")
        assert all(c.ok for c in checks(page)), checks(page)
    page.wait_for_timeout(300)  # (the announcer speaks 100 ms after a change)
    assert len([text for text in heard if "waiting for your answer" in text]) == 3, heard  # once a question

    # a chat turn that asks (the changed code runs first): in the turn, the Chat tab brought forward
    go(page, CHAT)
    open_chat(page)
    set_code(page, 'name = input("Your name? ")\n' + first_code(page), role="code")
    panel(page, "trace").click()
    panel(page, "chat").click()
    send(page, "hello")
    answer(page, "Cleo", where="chat")
    expect(replies(page)).to_have_count(1, timeout=TURN_MS)
    expect(replies(page).last.locator(".chat-text")).to_have_text("You said: hello")

    still_works(page, chat="again", reply="You said: again", lesson=CHAT)


MINE = "from looplab import mine\nreused = mine({n})\nprint('carried {n}')\n"


@pytest.fixture
def visit_without_service_worker(browser):
    """A visit whose requests all reach the network (no service worker answers from its cache), so
    the test can hold one."""
    from conftest import guard

    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    guard(context)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    yield page
    context.close()


def hold(page: Page, lesson: str) -> list:
    """Hold the requests for lessons/<lesson>.json (what a run that reuses it with mine() fetches
    before Python gets the run) until the test lets them go (`.fallback()` on each)."""
    held = []
    page.route(f"**/lessons/{lesson}.json", lambda route: held.append(route))
    return held


def until_held(page: Page, held: list) -> None:
    for _ in range(200):
        if held:
            return
        page.wait_for_timeout(50)
    raise AssertionError("the run did not ask for the lesson it reuses")


def test_journey_3_settings_saved_or_stop_between_run_and_pythons_start_end_the_run(
    visit_without_service_worker, site_url, fake
):
    """Issue 37 (3) / 39 (4): the session heard `started` before the runner had the run, and a
    rejection was never handled: Settings saved in that window left every later Run refused; a
    Stop pressed in it was lost."""
    page = visit_without_service_worker
    open_lesson(page, site_url)
    held = hold(page, "02-tools")
    set_code(page, MINE.format(n=2), role="code")
    start_run(page)
    until_held(page, held)  # the run waits for lesson 02's file: Python has not got it yet
    configure_live(page, fake.url)  # Settings saved meanwhile: Python starts again with the endpoint
    for route in held:
        route.fallback()
    wait_run_end(page)  # it ended, saying why (then Python, started again, says Ready)
    expect(page.get_by_test_id("output")).to_contain_text("the endpoint or key changed in Settings")
    wait_ready(page)
    page.get_by_test_id("run").click()  # the next Run runs
    wait_run_end(page)
    expect(page.get_by_test_id("output")).to_contain_text("carried 2")

    held = hold(page, "04-the-loop")  # Stop pressed in the same window: the run ends, Python never sees it
    set_code(page, MINE.format(n=4), role="code")
    start_run(page)
    until_held(page, held)
    page.get_by_test_id("stop").click()
    wait_run_end(page)
    assert status(page)["text"].startswith("Stopped"), status(page)
    for route in held:
        route.fallback()
    page.wait_for_timeout(1000)  # (time for a run that went on after all to print)
    assert "carried 4" not in page.get_by_test_id("output").inner_text()
    assert status(page)["state"] == "stopped"

    still_works(page, chat="hi", reply="You said: hi", lesson=CHAT)


def writing(page: Page):
    """The text of the chat turn being written."""
    return page.locator("[data-testid=chat-turn][data-state=pending] .chat-text")


def test_journey_4_model_switches_a_stopped_stream_and_a_reload_mid_run(visit, site_url, fake):
    """Scripted, then live with a slow stream stopped while it writes, a reload in the middle of a
    live run, the toggle back and forth in the Chat tab: each run and turn uses the model the
    toggle and the header name."""
    page = visit
    open_lesson(page, site_url)
    assert passes(page)  # scripted
    configure_live(page, fake.url)
    set_mode(page, "live")
    wait_ready(page)
    fake.streaming = {"split": 2, "chunk_delay": 0.5}
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is five, as the tool said: 5."))
    start_run(page)
    expect(page.get_by_test_id("status")).to_contain_text("The model writes", timeout=60_000)
    stop_kept_python(page)  # a Stop while the reply streams: the same Python, the run ended
    assert status(page)["text"].startswith("Stopped"), status(page)
    fake.reset()
    fake.streaming = {}
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))
    assert passes(page)  # live, the next run
    assert [post.body["model"] for post in fake.posts("/v1/chat/completions")] == ["fake-model", "fake-model"]

    fake.streaming = {"split": 2, "chunk_delay": 0.5}
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is five, as the tool said: 5."))
    start_run(page)
    expect(page.get_by_test_id("status")).to_contain_text("The model writes", timeout=60_000)
    page.reload()  # in the middle of a live run
    wait_ready(page, FIXTURE)
    expect(page.get_by_test_id("model-toggle")).to_have_attribute("data-mode", "live")
    fake.reset()  # (the reply the reload cut off is not asked for again)
    fake.streaming = {}

    go(page, CHAT)
    open_chat(page)
    who = page.locator("[data-role=chat-who]")
    expect(who).to_contain_text("· live model fake-model")
    expect(say(page, "hello live").locator(".chat-text")).to_have_text("echo: hello live")
    set_mode(page, "scripted")
    expect(who).to_contain_text("· scripted model")
    expect(say(page, "hello script").locator(".chat-text")).to_have_text("You said: hello script")
    set_mode(page, "live")
    expect(who).to_contain_text("· live model fake-model")
    expect(say(page, "live again").locator(".chat-text")).to_have_text("echo: live again")
    set_mode(page, "scripted")

    still_works(page, chat="the end", reply="You said: the end", lesson=CHAT)


def test_journey_5_leaving_lessons_mid_turn_and_mid_question(visit, site_url):
    """A chat turn running a slow tool when the learner opens another lesson; an input() left
    unanswered for another lesson; Reset; New conversation; an approval rejected inline."""
    page = visit
    open_lesson(page, site_url, CHAT)
    open_chat(page)
    send(page, "wait for me")  # the agent naps for a minute
    expect(page.get_by_test_id("stop")).to_be_enabled()
    page.wait_for_timeout(500)
    go(page, FIXTURE)  # opening another lesson stops the turn
    expect(page.get_by_test_id("status")).not_to_contain_text("stopping", timeout=10_000)
    set_code(page, ASKS, role="code")
    start_run(page)
    asked_here(page, "output")
    go(page, CHAT)  # the question goes with its run
    assert page.get_by_test_id("stdin").count() == 0
    go(page, FIXTURE)
    page.get_by_test_id("reset").click()
    assert passes(page)

    go(page, CHAT)
    open_chat(page)
    stopped = replies(page).last
    assert stopped.get_attribute("data-kind") == "interrupted"  # the turn cut short is kept, and says so
    expect(stopped.locator(".chat-flag")).to_contain_text("Stopped: ")
    page.get_by_test_id("chat-new").click()
    expect(page.locator("[data-testid=chat-turn]")).to_have_count(0)
    expect(say(page, "hello").locator(".chat-text")).to_have_text("You said: hello")
    send(page, "delete note n5")
    page.get_by_test_id("chat-reject").click()
    expect(replies(page)).to_have_count(2, timeout=TURN_MS)
    assert replies(page).last.get_attribute("data-stopped") == "needs_person"

    still_works(page, chat="still here?", reply="You said: still here?", lesson=CHAT)


def test_journey_6_settings_saved_while_a_live_turn_streams(visit, site_url, fake):
    """A new model name saved mid-turn is the next turn's; a new endpoint saved mid-turn ends the
    turn, saying why, and the next turn goes to the new endpoint."""
    from fakeserver import FakeServer

    page = visit
    open_lesson(page, site_url, CHAT)
    configure_live(page, fake.url, model="first-model")
    set_mode(page, "live")
    wait_ready(page)
    open_chat(page)
    fake.streaming = SLOW
    send(page, "hello agent")
    expect(writing(page)).to_contain_text("echo", timeout=TURN_MS)  # it streams
    configure_live(page, fake.url, model="second-model")  # the same endpoint: the turn goes on
    expect(replies(page)).to_have_count(1, timeout=TURN_MS)
    expect(replies(page).last.locator(".chat-text")).to_have_text("echo: hello agent")
    expect(page.locator("[data-role=chat-who]")).to_contain_text("· live model second-model")
    expect(say(page, "next").locator(".chat-text")).to_have_text("echo: next")
    assert [post.body["model"] for post in fake.posts("/v1/chat/completions")][-2:] == ["first-model", "second-model"]

    # This reply holds half-way (stall) until well after Settings is saved: on a busy machine the
    # learner's Save can come after a slow stream's end, and the turn must be cut, not finished.
    fake.streaming = {**SLOW, "fault": "stall", "stall": 60}
    with FakeServer(streaming=SLOW) as other:
        send(page, "one more")
        expect(writing(page)).to_contain_text("echo", timeout=TURN_MS)
        configure_live(page, other.url, model="second-model")  # a new endpoint: Python starts again
        expect(replies(page)).to_have_count(3, timeout=TURN_MS)
        cut = replies(page).last
        assert cut.get_attribute("data-kind") == "interrupted"
        expect(cut).to_contain_text("Settings changed the endpoint or key, so Python started again")
        wait_ready(page)
        expect(say(page, "over there").locator(".chat-text")).to_have_text("echo: over there")
        assert other.posts("/v1/chat/completions")[-1].body["messages"][-1]["content"] == "over there"
    set_mode(page, "scripted")

    still_works(page, chat="back home", reply="You said: back home", lesson=CHAT)
