"""The local model in the page: a real GGUF model (SmolLM2-135M-Instruct, the pinned test file of
mk/localmodel.mk) picked through Settings, run by an agent with two tools, stopped mid-reply,
kept in the Origin Private File System for the next visit, and bad files refused with a reason.

Each reply's trace line says how much of its prompt the engine evaluated, and a run of lesson 15's
agent with the KV cache reused between steps reads only each step's new tokens.

The model is slow on a busy 2-core machine (a reply takes tens of seconds), so the tests of one
context share one loaded model and run in this order; the timeouts are generous on purpose.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect

from conftest import ROOT, guard
from learner import open_lesson, start_run, status, stop_kept_python, wait_ready, wait_run_end

MODEL = ROOT / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL = "93-e2e-local"  # tests/e2e/fixtures/93-e2e-local.py: two tools, at most 2 steps
CACHE = "93b-e2e-local-cache"  # tests/e2e/fixtures/93b-e2e-local-cache.py: lesson 15's agent, cache on and off
LOAD_MS = 300_000  # loading and measuring the model on a busy machine
RUN_MS = 600_000  # two constrained replies of the 135M model on a busy machine


@pytest.fixture(scope="module")
def local_page(browser, site_url):
    """One browser context for the module: its OPFS keeps the model between the tests."""
    if not MODEL.exists():
        pytest.fail(f"{MODEL.relative_to(ROOT)} is missing: `make local-test-model` extracts it from the pinned wheel")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    guard(context)
    page = context.new_page()
    open_lesson(page, site_url, LOCAL)
    yield page
    context.close()


def local_status(page):
    return page.get_by_test_id("local-model-status")


def choose_local(page):
    """Model → local with no model kept: the page looks for one, finds none and opens Settings."""
    toggle = page.get_by_test_id("model-toggle")
    toggle.select_option("local")
    expect(toggle).to_have_attribute("data-mode", "local")
    # Nothing is kept in these tests' fresh profiles: once the page has looked (asynchronously), it
    # opens Settings. Wait for that, or a later click may land on the dialog as it opens.
    expect(page.locator("dialog[open]")).to_have_count(1)


def close_settings(page):
    if page.locator("dialog[open]").count():
        page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    expect(page.locator("dialog[open]")).to_have_count(0)


def test_the_engine_is_not_part_of_the_first_load(context, site_url):
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    open_lesson(page, site_url, LOCAL)
    expect(page.get_by_test_id("model-toggle")).to_have_attribute("data-mode", "scripted")
    assert any(url.endswith("/app.js") for url in requests)  # the page did load
    assert not [url for url in requests if "localengine" in url or "wllama" in url], requests


def test_a_picked_model_runs_an_agent_whose_replies_are_calls_of_listed_tools(local_page):
    page = local_page
    choose_local(page)
    expect(local_status(page)).to_contain_text("No local model yet")
    page.get_by_test_id("local-model-file").set_input_files(str(MODEL))
    status_line = local_status(page)
    expect(status_line).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
    text = status_line.inner_text()
    assert "98.4 MB" in text and "tokens/s" in text and "loaded in" in text, text
    assert "Smollm2 135M" in text, text  # the name from the file's metadata
    assert "not kept" not in text, text  # the copy for the next visit was written (the reload test needs it)
    close_settings(page)

    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=RUN_MS)
    output = page.get_by_test_id("output").inner_text()
    stopped = output.split("stopped: ", 1)[1].split(" ", 1)[0]
    assert stopped in ("final", "step_limit", "error", "needs_person"), output
    trace = page.get_by_test_id("trace")
    calls = trace.locator("li[data-type=tool_call] code:first-of-type").all_inner_texts()
    assert calls and set(calls) <= {"add_numbers", "get_temperature"}, calls  # constrained: calls of listed tools
    results = trace.locator("li[data-type=tool_result]")
    assert results.count() == len(calls)  # run_agent ran each one
    stop = trace.locator("li[data-type=stop]").inner_text()
    assert stopped in stop, stop  # the trace ends with the same stop
    # each reply says how much of its prompt the engine read; after the first, the KV cache held the rest
    read = [
        re.search(r"evaluated (\d+) of (\d+) prompt tokens", text)
        for text in trace.locator("li[data-type=model_reply]").all_inner_texts()
    ]
    assert read and all(read), read
    assert all(int(m[1]) < int(m[2]) for m in read[1:]), [m[0] for m in read]
    assert "2 of 2 checks passed" in status(page)["text"]
    assert local_status(page).get_attribute("data-loads") == "1"


def test_a_second_run_reuses_the_loaded_model_and_stop_ends_a_reply_without_a_restart(local_page):
    page = local_page
    start_run(page)
    expect(local_status(page)).to_have_attribute("data-busy", "true", timeout=60_000)  # the engine is writing
    stop_kept_python(page)
    expect(page.get_by_test_id("output")).to_contain_text("Stopped: KeyboardInterrupt.")  # no restart of Python
    expect(local_status(page)).to_have_attribute("data-busy", "false", timeout=10_000)  # the generation ended too
    assert local_status(page).get_attribute("data-loads") == "1"  # the same engine: no second load
    assert local_status(page).get_attribute("data-state") == "ready"


def test_with_the_cache_later_steps_read_only_their_new_tokens_and_the_replies_are_the_same(local_page, site_url):
    """Lesson 15's agent on the loaded model with the engine's KV cache reused between steps, again
    with its fixed prefix cached from that run, then without (tests/e2e/fixtures/93b-e2e-local-cache.py)."""
    page = local_page
    open_lesson(page, site_url, CACHE)
    if local_status(page).get_attribute("data-state") != "ready":  # run alone (-k): load the model here
        choose_local(page)
        page.get_by_test_id("local-model-file").set_input_files(str(MODEL))
        expect(local_status(page)).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
        close_settings(page)
    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=3 * RUN_MS)
    output = page.get_by_test_id("output").inner_text()
    line = next((row for row in output.splitlines() if row.startswith("BENCH ")), None)
    assert line, output
    runs = json.loads(line[len("BENCH ") :])
    cached, later, uncached = runs["cached"], runs["later"], runs["uncached"]
    assert len(cached) == len(later) == len(uncached) == 4, runs  # four steps, in one or more turns
    # Greedy decoding and logits that do not depend on how the prompt was split into batches
    # (localengine.js turns the CPU's flash attention off): the same reply at every step, cache or not.
    replies = [r["reply"] for r in uncached]
    assert [r["reply"] for r in cached] == replies and [r["reply"] for r in later] == replies, runs
    assert [r["tokens"] for r in cached] == [r["tokens"] for r in uncached], runs  # the same prompts
    assert all(r["evaluated"] == r["tokens"] for r in uncached), uncached  # without: the whole prompt each step
    assert cached[0]["evaluated"] > cached[0]["tokens"] // 2, cached  # the first run read its prefix
    for before, step in zip(cached, cached[1:]):  # with: only what is new
        assert 0 < step["evaluated"] < step["tokens"] - before["tokens"] // 2, cached
    # the later run found the agent's system message and tools in the cache: its first step read only the task
    assert 0 < later[0]["evaluated"] < later[0]["tokens"] // 4, later
    assert local_status(page).get_attribute("data-loads") == "1"  # the model loaded once for all of it
    open_lesson(page, site_url, LOCAL)


def test_after_a_reload_the_model_loads_from_the_browser_without_the_picker(local_page, site_url):
    page = local_page
    page.reload()
    wait_ready(page, LOCAL)
    expect(page.get_by_test_id("model-toggle")).to_have_attribute("data-mode", "local")
    expect(local_status(page)).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
    assert "Smollm2 135M" in local_status(page).inner_text()
    assert page.get_by_test_id("local-model-file").evaluate("input => input.files.length") == 0
    assert page.locator("dialog[open]").count() == 0  # nothing was asked
    # Forget deletes the kept copy: the next visit has no model and says so
    page.get_by_test_id("settings").click()
    page.locator("dialog[open] [data-role=local-forget]").click()
    expect(local_status(page)).to_contain_text("Forgotten")
    close_settings(page)
    page.reload()
    wait_ready(page, LOCAL)
    expect(local_status(page)).to_contain_text("No local model yet")
    expect(page.locator("dialog[open]")).to_have_count(1)


def test_a_catalog_model_chosen_last_whose_files_are_gone_is_named_not_silently_missing(context, site_url):
    """The model chosen last is remembered; when its files are no longer in this browser, the page
    says which model and what to do, instead of "No local model yet"."""
    page = context.new_page()
    open_lesson(page, site_url, LOCAL)
    entry = {"id": "gone", "name": "Gone 1M", "file": "gone.gguf", "size": 5_000_000, "sha256": "0" * 64}
    page.evaluate("entry => localStorage.setItem('looplab:local-catalog-model', JSON.stringify(entry))", entry)
    page.get_by_test_id("model-toggle").select_option("local")
    expect(local_status(page)).to_have_attribute("data-state", "failed")
    expect(local_status(page)).to_contain_text("Gone 1M, the model chosen last, is no longer whole in this browser")
    assert "download it again in Settings" in local_status(page).inner_text()
    assert "No local model yet" not in local_status(page).inner_text()


def test_a_file_that_is_not_gguf_and_a_truncated_gguf_each_get_a_clear_message(context, site_url, tmp_path):
    page = context.new_page()
    open_lesson(page, site_url, LOCAL)
    choose_local(page)
    notes = tmp_path / "notes.gguf"
    notes.write_text("these are my notes, not a model\n")
    picker = page.get_by_test_id("local-model-file")
    picker.set_input_files(str(notes))
    expect(local_status(page)).to_have_attribute("data-state", "failed")
    expect(local_status(page)).to_contain_text("notes.gguf is not a GGUF model file")
    cut = tmp_path / "cut.gguf"
    with MODEL.open("rb") as source:
        cut.write_bytes(source.read(MODEL.stat().st_size * 6 // 10))
    picker.set_input_files(str(cut))
    expect(local_status(page)).to_contain_text(
        "cut.gguf could not be loaded: the file is incomplete or damaged", timeout=LOAD_MS
    )
    assert local_status(page).get_attribute("data-state") == "failed"
    close_settings(page)
    page.get_by_test_id("run").click()  # nothing usable was kept: Run asks for a model
    expect(page.locator("dialog[open]")).to_have_count(1)
    expect(page.locator("[data-role=toast]")).to_contain_text("pick a .gguf file")


def test_a_model_at_a_url_on_the_learners_own_host_is_fetched_kept_and_loaded(context, site_url, site_dir):
    served = site_dir / "my-models" / "tiny.gguf"  # the learner's own host: here the site's own server
    served.parent.mkdir(exist_ok=True)
    if not served.exists():
        served.symlink_to(MODEL)
    page = context.new_page()
    open_lesson(page, site_url, LOCAL)
    choose_local(page)
    dialog = page.locator("dialog[open]")
    expect(dialog).to_have_count(1)
    dialog.locator("input[name=localUrl]").fill("ftp://example/tiny.gguf")
    dialog.locator("[data-role=local-fetch]").click()
    expect(local_status(page)).to_contain_text("must start with http:// or https://")
    dialog.locator("input[name=localUrl]").fill(f"{site_url}my-models/tiny.gguf")
    dialog.locator("[data-role=local-fetch]").click()
    expect(local_status(page)).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
    text = local_status(page).inner_text()
    assert "Smollm2 135M" in text and "98.4 MB" in text and "not kept" not in text, text
    kept = page.evaluate("""async () => { const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('local-model');
        const names = []; for await (const name of dir.keys()) names.push(name); return names; }""")
    assert kept == ["tiny.gguf"]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_page_that_is_not_isolated_says_local_mode_needs_it(browser, site_dir):
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(site_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    context = browser.new_context(service_workers="block")  # sw.js would isolate the page after one reload
    guard(context)
    try:
        page = context.new_page()
        for _ in range(50):
            try:
                page.goto(f"http://127.0.0.1:{port}/#/{LOCAL}")
                break
            except Exception:
                time.sleep(0.1)
        wait_ready(page, LOCAL)
        assert page.evaluate("crossOriginIsolated") is False
        choose_local(page)
        expect(page.locator("[data-role=toast]")).to_contain_text("needs a cross-origin isolated page")
        close_settings(page)
        page.get_by_test_id("run").click()
        expect(page.get_by_test_id("status")).to_contain_text("The local model needs a cross-origin isolated page")
        assert page.get_by_test_id("stop").is_disabled()  # nothing was started
    finally:
        context.close()
        server.terminate()
        server.wait(timeout=10)
