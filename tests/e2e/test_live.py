"""Live mode against the local OpenAI-compatible test server on another port (cross-origin)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from fakeserver import chat_call, chat_text
from learner import (
    configure_live,
    open_lesson,
    run,
    set_mode,
    start_run,
    status,
    try_connection,
    wait_ready,
    wait_run_end,
    wait_until,
)

KEY = "e2e-secret-key-4242"  # not shaped like a real key: only redaction by value can hide it


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def wait_service_worker(page) -> None:
    wait_until(page, "() => !!navigator.serviceWorker.controller")


@pytest.mark.plain_host
def test_live_mode_runs_a_lesson_against_a_cross_origin_endpoint(page, site_url, fake):
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY)
    set_mode(page, "live")
    assert origin(fake.url) != origin(site_url)
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))

    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results
    posts = fake.posts("/v1/chat/completions")
    assert len(posts) == 2
    assert posts[0].headers["authorization"] == f"Bearer {KEY}"
    assert posts[0].headers["origin"] == origin(site_url)
    assert posts[0].body["model"] == "fake-model"
    assert posts[0].body["tools"][0]["function"]["name"] == "add"
    assert [m["role"] for m in posts[1].body["messages"]] == ["system", "user", "assistant", "tool"]
    expect(page.get_by_test_id("trace")).to_contain_text("final after 2 steps")
    expect(page.get_by_test_id("output")).to_contain_text("answer: The sum is 5.")

    outcome, message = try_connection(page)
    assert outcome == "works" and message.startswith("Works: fake-model answered")
    assert all(p.body["max_tokens"] == 512 for p in posts)  # the default limit


def test_max_reply_tokens_bounds_the_reply_and_a_cut_shows_in_the_trace(page, site_url, fake):
    open_lesson(page, site_url)
    configure_live(page, fake.url, max_tokens=7)
    set_mode(page, "live")
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5, and", finish_reason="length"))
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results
    assert [p.body["max_tokens"] for p in fake.posts("/v1/chat/completions")] == [7, 7]
    trace = page.get_by_test_id("trace")
    expect(trace.locator(".ev-cut")).to_have_count(1)
    expect(trace.locator(".ev-cut")).to_contain_text("cut short by the token limit")

    fake.script(chat_call("add", '{"a": 2, "b', finish_reason="length"))  # the limit broke the call
    results = run(page)
    assert results[0][0] is False and "max_tokens=7" in results[0][2] and "LLM_MAX_TOKENS" in results[0][2], results
    assert "not valid JSON" not in results[0][2]
    expect(trace).to_contain_text("error after 1 step: the model call failed: the model's reply was cut")

    page.get_by_test_id("settings").click()
    expect(page.get_by_test_id("max-tokens")).to_have_value("7")  # kept with the settings
    page.get_by_test_id("max-tokens").fill("0")  # not a limit: Save refuses it
    page.locator("dialog[open]").get_by_role("button", name="Save").click()
    expect(page.locator("dialog[open]")).to_have_count(1)
    assert page.get_by_test_id("max-tokens").evaluate("e => e.validity.rangeUnderflow") is True
    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    assert page.evaluate("() => JSON.parse(localStorage.getItem('looplab:v1:settings'))")["maxTokens"] == "7"


def test_the_key_never_shows_and_is_kept_in_session_storage_unless_remembered(page, site_url, fake, tmp_path):
    console = []
    page.on("console", lambda message: console.append(message.text))
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY)
    set_mode(page, "live")
    # The endpoint echoes the key back, and the lesson prints it: it still must not show.
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(f"The sum is 5. Your key is {KEY}."))
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results
    expect(page.get_by_test_id("output")).to_contain_text("Your key is [redacted]")
    # A failing check quotes the answer, and the progress keeps the checks' messages: still no key.
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(f"Your key is {KEY}."))
    results = run(page)
    assert results[1][0] is False and "[redacted]" in results[1][2], results
    with page.expect_download() as download:
        page.locator("[data-role=export]").click()
    download.value.save_as(tmp_path / "progress.json")
    exported = (tmp_path / "progress.json").read_text()
    assert "[redacted]" in exported and KEY not in exported
    assert not [line for line in console if KEY in line]
    page.get_by_role("tab", name="Trace").click()
    page.get_by_role("tab", name="Context").click()

    assert KEY not in page.url
    for testid in ("output", "trace", "context-view", "checks", "status", "lesson-text"):
        assert KEY not in page.get_by_test_id(testid).text_content(), testid
    assert KEY not in page.content()  # the whole DOM: the key input's value is a property, not markup
    other_values = page.eval_on_selector_all(
        "input, textarea, select", "els => els.filter(e => e.name !== 'apiKey').map(e => e.value)"
    )
    assert all(KEY not in value for value in other_values)
    assert page.evaluate("() => document.querySelector('input[name=apiKey]').value") == KEY
    storage = page.evaluate("() => [JSON.stringify(localStorage), JSON.stringify(sessionStorage)]")
    assert KEY not in storage[0] and KEY in storage[1]

    configure_live(page, fake.url, key=KEY, remember=True)
    storage = page.evaluate("() => [JSON.stringify(localStorage), JSON.stringify(sessionStorage)]")
    assert KEY in storage[0] and KEY not in storage[1]
    page.reload()
    wait_ready(page)
    page.get_by_test_id("settings").click()  # the dialog is filled when it opens
    assert page.evaluate("() => document.querySelector('input[name=apiKey]').value") == KEY
    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    configure_live(page, fake.url, key=KEY, remember=False)
    storage = page.evaluate("() => [JSON.stringify(localStorage), JSON.stringify(sessionStorage)]")
    assert KEY not in storage[0] and KEY in storage[1]


def test_a_refused_key_is_explained(page, site_url, fake):
    fake.key = "the-right-key"
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY)
    outcome, message = try_connection(page)
    assert outcome == "key_refused"
    assert "refused the key (HTTP 401" in message and "Check the key in Settings" in message
    assert KEY not in message

    set_mode(page, "live")
    results = run(page)
    assert results and not results[0][0]
    assert "401" in results[0][2] and "key" in results[0][2], results
    expect(page.get_by_test_id("trace")).to_contain_text("401")


def test_a_cors_refusal_is_explained(page, site_url, fake):
    fake.cors = False
    open_lesson(page, site_url)
    wait_service_worker(page)  # its probe tells "refused by CORS" from "nothing there"
    configure_live(page, fake.url, key=KEY)
    outcome, message = try_connection(page)
    assert outcome == "cors", message
    assert "refused requests from this page (CORS)" in message and "OLLAMA_ORIGINS=" in message

    set_mode(page, "live")
    results = run(page)
    assert results and not results[0][0]
    assert "CORS" in results[0][2] or "blocked" in results[0][2], results


def test_an_endpoint_that_is_not_there_is_explained(page, site_url):
    import socket

    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    open_lesson(page, site_url)
    wait_service_worker(page)
    configure_live(page, f"http://127.0.0.1:{port}/v1")
    outcome, message = try_connection(page)
    assert outcome == "unreachable" and "Nothing answered at" in message


@pytest.mark.plain_host
def test_stop_ends_a_request_that_never_answers(page, site_url, fake):
    open_lesson(page, site_url)
    configure_live(page, fake.url)
    set_mode(page, "live")
    fake.script({"delay": 60, "json": {}})
    start_run(page)
    for _ in range(200):  # until the request has reached the server (polled, at most 10 s)
        if fake.posts():
            break
        page.wait_for_timeout(50)
    assert fake.posts(), "the request never reached the server"
    page.get_by_test_id("stop").click()
    wait_run_end(page, timeout=10_000)
    assert status(page)["state"] == "stopped", status(page)  # the wait heard Stop (restarts counts Settings' too)
    expect(page.get_by_test_id("output")).to_contain_text("Stopped")

    wait_ready(page)
    set_mode(page, "scripted")
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True]


def test_enter_in_a_settings_field_saves_the_settings(page, site_url):
    open_lesson(page, site_url)
    page.get_by_test_id("settings").click()
    dialog = page.locator("dialog[open]")
    dialog.locator("select[name=preset]").select_option("custom")
    dialog.locator("input[name=baseUrl]").fill("http://127.0.0.1:9/v1")
    dialog.locator("input[name=model]").fill("typed-model")
    dialog.locator("input[name=apiKey]").fill(KEY)
    dialog.locator("input[name=apiKey]").press("Enter")
    expect(page.locator("dialog[open]")).to_have_count(0)
    saved = page.evaluate("() => JSON.parse(localStorage.getItem('looplab:v1:settings'))")
    assert saved["model"] == "typed-model" and saved["baseUrl"] == "http://127.0.0.1:9/v1"
    assert page.evaluate("() => sessionStorage.getItem('looplab:v1:api-key')") == KEY
    # Cancel (the button or Esc) still keeps what was saved before
    page.get_by_test_id("settings").click()
    page.locator("dialog[open] input[name=model]").fill("not-this-one")
    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    expect(page.locator("dialog[open]")).to_have_count(0)
    assert page.evaluate("() => JSON.parse(localStorage.getItem('looplab:v1:settings'))")["model"] == "typed-model"
