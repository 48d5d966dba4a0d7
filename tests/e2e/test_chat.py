"""The Chat tab: a conversation with the agent a lesson built, message by message, in the lesson's
namespace (kept between messages), each turn a run in the inspector; Stop ends a turn and the
conversation goes on; approvals ask inline; the conversation survives a reload; axe finds nothing."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from learner import open_lesson, put_solutions, stop_kept_python, wait_ready
from test_a11y import audit, report

FIFTEEN = "15-the-whole-thing"
TWENTY_THREE = "23-several-agents"
CHAT = "94-e2e-chat"  # tests/e2e/fixtures/94-e2e-chat.py: an approval and a slow tool
TURN_MS = 60_000


def open_chat(page: Page) -> None:
    page.get_by_test_id("chat-tab").click()
    expect(page.get_by_test_id("chat-input")).to_be_focused()


def assistant(page: Page):
    return page.locator("[data-testid=chat-turn][data-role=assistant]:not([data-state=pending])")


def say(page: Page, text: str, timeout: float = TURN_MS):
    """Type a message, press Enter, and wait for its reply: the newest assistant turn."""
    before = assistant(page).count()
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")
    expect(assistant(page)).to_have_count(before + 1, timeout=timeout)
    return assistant(page).last


def test_lesson_15_remembers_alice_blocks_a_delete_and_forgets_in_a_new_conversation(page, site_url):
    open_lesson(page, site_url, FIFTEEN)
    put_solutions(page)  # a learner who finished the lesson's exercises
    tab = page.get_by_test_id("chat-tab")
    expect(tab).to_be_visible()
    open_chat(page)
    chips = page.get_by_test_id("chat-suggestion")
    expect(chips).to_have_count(3)  # the scripted brain's prompts, from chat_with
    assert chips.all_inner_texts() == [
        "remember my name is Alice, then add 10 and 5",
        "what is my name?",
        "delete the database",
    ]

    first = say(page, "remember my name is Alice, then add 10 and 5")
    expect(page.locator("[data-role=chat-empty]")).to_have_count(0)  # the empty log's hint went
    expect(first.locator(".chat-text")).to_contain_text("15")
    assert first.get_attribute("data-stopped") == "final" and first.get_attribute("data-kind") == "answer"
    printed = first.locator(".chat-printed")  # the learner's loop printed its own trace
    printed.locator("summary").click()
    expect(printed).to_contain_text("remember")
    user = page.locator("[data-testid=chat-turn][data-role=user]")
    expect(user.first).to_have_text("You" + "remember my name is Alice, then add 10 and 5")

    before = assistant(page).count()
    chips.nth(1).click()  # a suggestion sends itself
    expect(assistant(page)).to_have_count(before + 1, timeout=TURN_MS)
    expect(assistant(page).last.locator(".chat-text")).to_contain_text("Alice")  # the namespace was kept

    blocked = say(page, "delete the database")
    expect(blocked.locator(".chat-text")).to_contain_text("BLOCKED")
    assert blocked.get_attribute("data-kind") == "blocked" and blocked.get_attribute("data-stopped") == "blocked"
    expect(blocked).to_contain_text("Blocked: the input gate refused this message")

    # each turn is a run in the inspector, named for the agent, with the message as its task
    page.locator(".panel-tabs [data-panel=trace]").click()
    runs = page.get_by_test_id("trace-runs").locator("button")
    expect(runs).to_have_count(3)
    assert all(name.startswith("agent · #") for name in runs.locator(".insp-run-name").all_inner_texts())
    runs.nth(1).click()
    expect(page.locator(".insp-task")).to_contain_text("what is my name?")
    expect(page.locator(".insp-outcome")).to_contain_text("final")
    page.locator(".panel-tabs [data-panel=chat]").click()
    blocked.locator("[data-role=chat-run]").click()  # a reply's link opens its run
    expect(page.locator(".insp-task")).to_contain_text("delete the database")

    # the conversation is kept with the lesson's edits: a reload shows it again
    page.reload()
    wait_ready(page, FIFTEEN)
    open_chat(page)
    expect(page.locator("[data-testid=chat-turn]")).to_have_count(6)

    page.get_by_test_id("chat-new").click()
    expect(page.locator("[data-testid=chat-turn]")).to_have_count(0)
    forgot = say(page, "what is my name?")
    expect(forgot.locator(".chat-text")).not_to_contain_text("Alice")
    assert forgot.get_attribute("data-stopped") == "final"
    box = page.get_by_test_id("chat-input")  # ↑ recalls the last message; Shift+Enter a new line
    box.press("ArrowUp")
    expect(box).to_have_value("what is my name?")
    box.press("Shift+Enter")
    box.type("twice")
    expect(box).to_have_value("what is my name?\ntwice")
    assert assistant(page).count() == 1


def test_stop_ends_a_turn_without_restarting_python_and_the_next_message_works(page, site_url):
    open_lesson(page, site_url, CHAT)
    open_chat(page)
    box = page.get_by_test_id("chat-input")
    box.fill("wait for me")
    page.get_by_test_id("chat-send").click()
    expect(page.get_by_test_id("stop")).to_be_enabled()
    expect(page.locator("[data-testid=chat-turn][data-state=pending]")).to_have_count(1)
    time.sleep(1)  # the nap tool is running
    stop_kept_python(page, ended=lambda: expect(assistant(page)).to_have_count(1, timeout=10_000))
    stopped = assistant(page).last
    assert stopped.get_attribute("data-kind") == "interrupted"
    expect(stopped).to_contain_text("Stopped: the turn ended before the agent answered.")
    expect(page.get_by_test_id("status")).to_contain_text("Stopped the turn")
    after = say(page, "hello again")
    expect(after.locator(".chat-text")).to_have_text("You said: hello again")
    # the turn is run_agent's run: it can be forked from its step in the inspector
    page.locator(".panel-tabs [data-panel=trace]").click()
    runs = page.get_by_test_id("trace-runs").locator("button")
    expect(runs).to_have_count(2)
    expect(runs.first).to_contain_text("Stop was pressed")  # the cut run got its stop
    runs.last.click()
    page.get_by_test_id("fork").click()
    page.locator(".insp-forkbox select").select_option(label="the model's reply")
    page.get_by_test_id("fork-editor").fill("Forked hello.")
    page.get_by_test_id("fork-run").click()
    expect(page.get_by_test_id("trace-fork").locator("[data-role=fork] [data-field=answer]")).to_have_text(
        "Forked hello."
    )
    expect(runs.last).to_contain_text("fork of #")


def test_an_approval_asks_inline_and_the_tool_call_shows_folded(page, site_url):
    open_lesson(page, site_url, CHAT)
    open_chat(page)
    box = page.get_by_test_id("chat-input")
    box.fill("delete note n5")
    box.press("Enter")
    approve = page.get_by_test_id("chat-approve")
    expect(approve).to_be_visible()
    expect(page.get_by_test_id("chat-reject")).to_be_focused()  # the safe choice first
    expect(page.get_by_test_id("approval")).to_be_hidden()  # inline, not the dialog
    expect(page.locator(".chat-approval")).to_contain_text('"note_id": "n5"')
    approve.click()
    expect(assistant(page)).to_have_count(1, timeout=TURN_MS)
    reply = assistant(page).last
    expect(reply.locator(".chat-text")).to_have_text("The tool said: deleted n5")
    tools = reply.locator(".chat-tools")
    expect(tools.locator("summary")).to_have_text("1 tool call")
    tools.locator("summary").click()
    expect(tools).to_contain_text('delete_note({"note_id": "n5"}) → deleted n5')

    box.fill("delete note n5")
    box.press("Enter")
    page.get_by_test_id("chat-reject").click()
    expect(assistant(page)).to_have_count(2, timeout=TURN_MS)
    expect(assistant(page).last).to_have_attribute("data-stopped", "needs_person")


def test_lesson_23s_researcher_answers_in_the_chat(page, site_url):
    open_lesson(page, site_url, TWENTY_THREE)
    put_solutions(page)
    open_chat(page)
    chips = page.get_by_test_id("chat-suggestion")
    expect(chips).to_have_count(2)
    reply = say(page, chips.first.inner_text())
    assert reply.get_attribute("data-stopped") == "final"
    expect(reply.locator(".chat-who")).to_have_text("researcher")
    expect(reply.locator(".chat-tools summary")).to_contain_text("tool call")
    assert reply.locator(".chat-text").inner_text().strip()
    page.locator(".panel-tabs [data-panel=trace]").click()
    expect(page.get_by_test_id("trace-runs").locator(".insp-run-name").first).to_contain_text("researcher · #")


def test_a_lesson_without_chat_with_has_no_chat_tab(page, site_url):
    open_lesson(page, site_url, CHAT)
    expect(page.get_by_test_id("chat-tab")).to_be_visible()
    page.evaluate("() => { location.hash = '#/92-e2e-approval'; }")
    wait_ready(page, "92-e2e-approval")
    expect(page.get_by_test_id("chat-tab")).to_be_hidden()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_chats_states_have_no_wcag_violations_and_a_reply_is_announced_once(browser, site_url, scheme):
    from conftest import guard

    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    guard(context)
    try:
        page = context.new_page()
        open_lesson(page, site_url, CHAT)
        open_chat(page)
        expect(page.get_by_test_id("chat-suggestion")).to_have_count(2)
        found = {"empty, with suggestions": audit(page)}
        announced = []
        page.expose_function("heard", lambda text: announced.append(text))
        page.evaluate("""() => new MutationObserver(() => {
            const text = document.querySelector('[data-testid=announcer]').textContent;
            if (text) window.heard(text);
        }).observe(document.querySelector('[data-testid=announcer]'), { childList: true, characterData: true, subtree: true })""")
        box = page.get_by_test_id("chat-input")
        box.fill("delete note n5")
        box.press("Enter")
        expect(page.get_by_test_id("chat-approve")).to_be_visible()
        found["an approval asked inline"] = audit(page)
        page.get_by_test_id("chat-approve").click()
        expect(assistant(page)).to_have_count(1, timeout=TURN_MS)
        assistant(page).last.locator(".chat-tools summary").click()
        found["a reply with its tool call open"] = audit(page)
        page.wait_for_timeout(500)
        assert [t for t in announced if "replied" in t] == [announced[-1]] and "The tool said: deleted n5" in announced[
            -1
        ], announced
        box.fill("wait for me")
        box.press("Enter")
        expect(page.get_by_test_id("stop")).to_be_enabled()
        page.get_by_test_id("stop").click()
        expect(assistant(page)).to_have_count(2, timeout=3_000)
        found["a stopped turn"] = audit(page)
        problems = "\n".join(report(f"{scheme}: {name}", v) for name, v in found.items() if v)
        assert len(found) == 4 and not problems, "axe-core found WCAG violations:\n" + problems
    finally:
        context.close()


def test_a_live_chat_sends_the_kept_conversation_to_the_endpoint(page, site_url, fake):
    from fakeserver import chat_text
    from learner import configure_live, set_mode

    open_lesson(page, site_url, CHAT)
    configure_live(page, fake.url, key="sk-chat-test-0123456789")
    set_mode(page, "live")
    wait_ready(page)  # saved settings start Python again
    open_chat(page)
    expect(page.get_by_test_id("chat-suggestion")).to_have_count(0)  # suggestions are the scripted brain's
    fake.script(chat_text("Hello from the endpoint."), chat_text("You said hi before."))
    first = say(page, "hi")
    expect(first.locator(".chat-text")).to_have_text("Hello from the endpoint.")
    second = say(page, "what did I say?")
    expect(second.locator(".chat-text")).to_have_text("You said hi before.")
    assert second.get_attribute("data-stopped") == "final"
    posts = fake.posts("/v1/chat/completions")
    sent = [[m.get("content") for m in post.body["messages"] if m["role"] != "system"] for post in posts]
    assert sent == [["hi"], ["hi", "Hello from the endpoint.", "what did I say?"]]  # one memory across messages
    assert "sk-chat-test" not in page.get_by_test_id("chat-log").inner_text()
