"""Lesson 15's chat with the local model (SmolLM2-135M-Instruct, the pinned test file): the three turns
of "A Tour of Agents" each end with a stop reason. What the small model says is not checked.

Before the first message the lesson's code runs with the chosen model, and its own task queue alone
is some 24 model calls — many minutes for the 135M model on a busy 2-core machine. So the test,
as a learner in a hurry would, empties the queue the lesson processes (`task_queue.extend([])`);
the agent, its tools, gates and memory are the lesson's own. The timeouts are generous on purpose."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import guard
from learner import cell, code_of, open_lesson, put_solutions, set_code
from test_chat import FIFTEEN, open_chat, say
from test_local_model import LOAD_MS, MODEL, ROOT, choose_local, close_settings, local_status

TURN_MS = 900_000  # the first message runs the lesson's code with the model (a few calls), then the turn
STOPS = ("final", "step_limit", "error", "needs_person", "blocked")


def test_lesson_15s_three_turns_with_the_local_model_each_end_with_a_stop_reason(browser, site_url):
    if not MODEL.exists():
        pytest.fail(f"{MODEL.relative_to(ROOT)} is missing: `make local-test-model` extracts it from the pinned wheel")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    guard(context)
    try:
        page = context.new_page()
        open_lesson(page, site_url, FIFTEEN)
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
        choose_local(page)
        page.get_by_test_id("local-model-file").set_input_files(str(MODEL))
        expect(local_status(page)).to_have_attribute("data-state", "ready", timeout=LOAD_MS)
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
