"""Streamed live replies in the page: the worker reads the fake server's body piece by piece
(transport.js open_stream / read_stream through pyodide.ffi.run_sync), and the text shows in the
inspector's current step and the status line before the reply has ended. Stop mid-stream, a broken
stream, and Settings → Stream replies off. The same for the openai SDK's path (LLM_API=sdk): its
httpx2 transport in the page (py-extra/httpx2_jsfetch) reads the body through the same functions."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from fakeserver import chat_call, chat_text
from learner import (
    checks,
    configure_live,
    open_lesson,
    run,
    set_code,
    set_mode,
    start_run,
    status,
    stop_kept_python,
    wait_ready,
    wait_run_end,
)

ANSWER = "The sum is 5. Two and three make five, as the add tool said, and nothing else was needed."


def answer_in_trace(page) -> str:
    return page.evaluate("""() => { const out = document.querySelector('[data-testid=output]').innerText;
        const line = out.split('\\n').find((l) => l.startsWith('answer: ')); return line ? line.slice(8) : null; }""")


def stream_shown_early(page, whole: str) -> str:
    """The streamed text in the current step, seen while the run still goes on: a start of `whole`, not all of it."""
    stream = page.get_by_test_id("stream-text")
    expect(stream).to_contain_text(whole[:10], timeout=60_000)  # the SDK's wheels load first
    shown = stream.inner_text()
    assert whole.startswith(shown.strip()) and len(shown) < len(whole), (shown, whole)
    assert page.get_by_test_id("stop").is_enabled()  # the run is still going on
    return shown


def live(page, site_url, fake, **settings):
    open_lesson(page, site_url)
    configure_live(page, fake.url, **settings)
    set_mode(page, "live")
    wait_ready(page)


@pytest.mark.plain_host
def test_a_streamed_reply_shows_as_it_arrives_and_ends_as_the_unstreamed_one(page, site_url, fake):
    live(page, site_url, fake)
    fake.streaming = {"split": 4, "chunk_delay": 0.12}  # ~23 text events, ~3 s in all
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(ANSWER))
    start_run(page)
    stream = page.get_by_test_id("stream-text")
    expect(stream).to_contain_text("The sum is", timeout=20_000)
    shown = stream.inner_text()
    assert shown.startswith("The sum is") and len(shown) < len(ANSWER)  # a part, before the whole
    assert page.get_by_test_id("stop").is_enabled()  # the run is still going on
    assert "The model writes: “The sum" in status(page)["text"]
    wait_run_end(page)
    assert [c.ok for c in checks(page)] == [True, True]
    streamed = answer_in_trace(page)
    assert streamed == ANSWER
    assert page.get_by_test_id("stream-text").count() == 0  # the step shows the whole reply now
    posts = fake.posts("/v1/chat/completions")
    assert [p.body.get("stream") for p in posts] == [True, True]

    # Stream replies off: the same reply comes whole (no stream asked for) and ends the same.
    configure_live(page, fake.url, stream=False)
    wait_ready(page)
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(ANSWER))
    assert [c.ok for c in run(page)] == [True, True]
    assert answer_in_trace(page) == streamed
    assert [p.body.get("stream") for p in fake.posts("/v1/chat/completions")[2:]] == [None, None]


@pytest.mark.parametrize("api", ["chat", "sdk"])
def test_stop_mid_stream_ends_the_run_within_1_s_and_python_goes_on(page, site_url, fake, api):
    # Without the spare worker (`?spare=off`): its restore in idle time shares the machine's cores;
    # the spare's own Stop is test_spare.py's. Pieces every 2 ms, much closer together than the
    # worker's 50 ms look at Stop, and five Stops: each piece is a moment where a Stop used to be
    # lost. A KeyboardInterrupt raised inside Pyodide's own resolvers of run_sync's wait (its
    # Future's result; a task later, its done callback) was lost with the piece ("Unexpected error",
    # or nothing shown), run_sync then waited for good, and the page restarted Python after its
    # grace: about one Stop in twenty here (transport.js settle and waited).
    live(page, site_url + "?spare=off", fake, api=api)
    long = " ".join([ANSWER] * 30)
    for _ in range(5):
        fake.streaming = {"split": 1, "chunk_delay": 0.002}  # ~2700 events, a few seconds of streaming
        fake.script(chat_text(long))
        start_run(page)
        stream_shown_early(page, long)
        # Within 1.8 s by the page's own rule: the runner ends a worker that has not stopped within
        # STOP_GRACE_MS (1000), or STOP_HEARD_MS (800) later when Python took the Stop, and starts
        # another, so a run that ends "Stopped" with the same worker was stopped by the stream's abort.
        stop_kept_python(page)
        assert status(page)["text"].startswith("Stopped")
        expect(page.get_by_test_id("output")).to_contain_text("Stopped: KeyboardInterrupt.")
        assert "Unexpected error" not in page.get_by_test_id("output").inner_text()

    fake.streaming = {}
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))
    assert [c.ok for c in run(page)] == [True, True]  # the same worker runs the next one
    assert answer_in_trace(page) == "The sum is 5."


@pytest.mark.parametrize(
    "fault, words",
    [
        ("hangup", "broke: the connection closed in the middle of it"),
        ("not_json", "broke: a data: line was not JSON"),
    ],
)
@pytest.mark.parametrize("api", ["chat", "sdk"])
def test_a_broken_stream_ends_the_run_with_its_sentence(page, site_url, fake, api, fault, words):
    live(page, site_url, fake, api=api)
    fake.script({**chat_text(ANSWER), "stream": {"fault": fault, "split": 5}})
    results = run(page)
    assert results and not results[0].ok
    assert words in results[0].message and "Stream replies in Settings" in results[0].message, results


@pytest.mark.plain_host
def test_the_sdk_paths_reply_streams_too_and_ends_as_the_unstreamed_one(page, site_url, fake):
    key = "e2e-sdk-stream-key-4242"
    live(page, site_url, fake, api="sdk", key=key)
    fake.streaming = {"split": 4, "chunk_delay": 0.12}
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(ANSWER))
    start_run(page)
    stream_shown_early(page, ANSWER)
    assert "The model writes: “The sum" in status(page)["text"]
    wait_run_end(page)
    assert [c.ok for c in checks(page)] == [True, True], page.get_by_test_id("output").inner_text()
    streamed = answer_in_trace(page)
    assert streamed == ANSWER
    posts = fake.posts("/v1/chat/completions")
    assert [(p.body.get("stream"), p.body.get("stream_options")) for p in posts] == [
        (True, {"include_usage": True})
    ] * 2
    assert all(p.headers["authorization"] == f"Bearer {key}" for p in posts)  # the worker keyed the fetch
    assert key not in page.get_by_test_id("output").inner_text() + page.get_by_test_id("trace").inner_text()

    configure_live(page, fake.url, api="sdk", key=key, stream=False)
    wait_ready(page)
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(ANSWER))
    start_run(page)  # (not run(): the last run's end must not be taken for this one's)
    wait_run_end(page)
    assert [c.ok for c in checks(page)] == [True, True]
    assert answer_in_trace(page) == streamed, page.get_by_test_id("output").inner_text()
    assert [p.body.get("stream") for p in fake.posts("/v1/chat/completions")[2:]] == [None, None]


MODEL = Path(__file__).resolve().parents[2] / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
COUNT = """
from looplab import Memory, Toolbox, pick_model, run_agent
result = run_agent("Count from one to twenty in words, separated by commas.", pick_model([]), Toolbox(),
                   Memory("You count."), max_steps=1)
print("answer:", result["answer"])
result = {"stopped": "final", "answer": "5"}
"""


def test_the_local_models_tokens_show_as_they_are_generated(page, site_url):
    if not MODEL.exists():
        pytest.fail(f"{MODEL} is missing: `make local-test-model` extracts it from the pinned wheel")
    open_lesson(page, site_url)
    set_code(page, COUNT)
    page.get_by_test_id("model-toggle").select_option("local")
    page.get_by_test_id("local-model-file").set_input_files(str(MODEL))
    expect(page.get_by_test_id("local-model-status")).to_have_attribute("data-state", "ready", timeout=300_000)
    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    start_run(page)
    stream = page.get_by_test_id("stream-text")
    expect(stream).not_to_be_empty(timeout=120_000)
    early = stream.inner_text()
    assert "The model writes: “" in status(page)["text"]
    wait_run_end(page, timeout=300_000)
    answer = answer_in_trace(page)
    assert answer and answer.startswith(early.strip()[:10]), (early, answer)  # the first tokens, then the rest
    assert len(early) < len(answer)
