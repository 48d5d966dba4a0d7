"""The live adapters' main paths again, from the browser worker, cross-origin against the fake server.

The fault matrix runs in CPython (tests/live); here the same Python runs in the page's worker,
where requests are synchronous XHRs from another origin. Already covered in test_live.py:
    the lean adapter: a tool call, then the final answer   test_live_mode_runs_a_lesson_against_a_cross_origin_endpoint
    a CORS refusal (lean adapter, and Test connection)    test_a_cors_refusal_is_explained
    a refused key (401)                                   test_a_refused_key_is_explained
    Stop of a request that never answers                  test_stop_ends_a_request_that_never_answers
Here: the openai SDK installed in the page from the site's own wheels (LLM_API=sdk, chosen in
Settings) and run through our httpx2_jsfetch transport, a retried fault and a fault that is not
retried, a CORS refusal seen by the SDK, and lesson 14's SDK part in live mode.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from looplab._course.lesson import check_statements, is_expect, parse

from fakeserver import chat_call, chat_text, error, responses_call, responses_text
from learner import configure_live, open_lesson, put_solutions, run, set_mode, status

KEY = "e2e-sdk-key-7373"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def output(page) -> str:
    return page.get_by_test_id("output").inner_text()


@pytest.mark.plain_host
def test_the_sdk_is_installed_from_the_site_and_runs_a_lesson(page, site_url, fake):
    """LLM_API=sdk: the SDK's wheels come from this site (the network guard would fail anything else),
    the first call meets a 500 that the SDK retries, and the run ends with the answer."""
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY, api="sdk")
    set_mode(page, "live")
    fake.script(error(500), chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))

    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], (results, output(page))
    text = output(page)
    assert "(loading " in text and "openai" in text and "pydantic-core" in text and "httpx2-jsfetch" in text
    assert "answer: The sum is 5." in text
    assert int(status(page)["extrasMs"]) > 0

    posts = fake.posts("/v1/chat/completions")
    assert len(posts) == 3  # the 500, its retry, the second step
    assert all(p.headers["authorization"] == f"Bearer {KEY}" for p in posts)
    assert posts[0].headers["origin"] == origin(site_url) != origin(fake.url)  # cross-origin, from the page
    assert not [h for h in posts[0].headers if h.startswith("x-stainless-")]  # left out: fewer preflights
    assert posts[1].body == posts[0].body and posts[1].body["tools"][0]["function"]["name"] == "add"
    assert [m["role"] for m in posts[2].body["messages"]] == ["system", "user", "assistant", "tool"]
    expect(page.get_by_test_id("trace")).to_contain_text("final after 2 steps")

    # Loaded once per worker: the next run goes straight to the endpoint.
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results
    assert "(loading " not in output(page)
    assert "extrasMs" not in status(page)

    # A CORS refusal, as the SDK sees it: the same sentence as the lean adapter's.
    fake.cors = False
    results = run(page)
    assert results and not results[0][0]
    assert "did not allow requests from this page (CORS)" in results[0][2], results
    assert KEY not in page.content()


def test_the_lean_adapter_retries_a_500_and_explains_a_missing_model(page, site_url, fake):
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY)
    set_mode(page, "live")
    fake.script(error(500), chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], (results, output(page))
    posts = fake.posts("/v1/chat/completions")
    assert len(posts) == 3 and posts[0].body == posts[1].body  # the first call was sent twice
    assert "(loading " not in output(page)  # the lean adapter needs no extra package

    # A 404 for the model is not retried, and reads as one sentence.
    fake.models = ["fake-model"]
    configure_live(page, fake.url, model="gpt-x", key=KEY)
    before = len(fake.posts())
    results = run(page)
    assert results and not results[0][0]
    assert "model 'gpt-x' not found at" in results[0][2] and "check the model name in Settings" in results[0][2]
    assert len(fake.posts()) == before + 1
    assert "Traceback" not in output(page)


def test_lesson_14_runs_its_sdk_part_live(page, site_url, fake):
    """Lesson 14 imports openai: the page installs it, and in live mode the SDK part calls the endpoint."""
    slug = "14-real-models"
    open_lesson(page, site_url, slug)
    put_solutions(page)
    configure_live(page, fake.url, key=KEY)
    set_mode(page, "live")
    tool_then_text = [chat_call("add", {"a": 1002, "b": 4002}), chat_text("1002 + 4002 = 5004.")]
    fake.script(*tool_then_text, *tool_then_text)  # the raw-HTTP run, then the SDK's
    fake.script(
        responses_call("add", {"a": 1002, "b": 4002}), responses_text("1002 + 4002 = 5004."), path="/v1/responses"
    )

    results = run(page)
    text = output(page)
    # Claims about the recorded replies (expect(...)) are not checked with a live model: never a ✓,
    # and their message says what the model did. Every other check passes.
    lesson = Path(__file__).resolve().parents[2] / "lessons" / f"{slug}.py"
    claims = {
        name
        for cell in parse(lesson.read_text(encoding="utf-8"))
        if cell.role == "check"
        for name, stmt in check_statements(cell)
        if is_expect(stmt)
    }
    assert claims and results, (results, text)
    assert all(ok for ok, name, _ in results if name not in claims), (results, text)
    assert [(ok, bool(message)) for ok, name, message in results if name in claims] == [(False, True)] * len(claims)
    assert "(loading " in text and "openai" in text
    assert "is not installed here" not in text
    chat = fake.posts("/v1/chat/completions")
    assert len(chat) == 4  # two by raw HTTP, two by the SDK
    assert all(p.headers["authorization"] == f"Bearer {KEY}" for p in chat)
    assert chat[2].body == chat[0].body  # the SDK sent exactly the body the learner's code built
    assert len(fake.posts("/v1/responses")) == 2
