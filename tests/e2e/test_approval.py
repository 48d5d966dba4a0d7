"""Approve in the page: a run paused by ask_person waits for Approve or Reject; Stop still ends it."""

from __future__ import annotations


import pytest
from playwright.sync_api import expect

from conftest import PlainServer, guard
from learner import open_lesson, start_run, status, stop_kept_python, wait_ready, wait_run_end

APPROVAL = "92-e2e-approval"  # tests/e2e/fixtures/92-e2e-approval.py


@pytest.mark.plain_host  # on a plain host the page isolates itself (sw.js): approvals pause there too
def test_approve_runs_the_tool_and_the_run_ends_final(page, site_url):
    open_lesson(page, site_url, APPROVAL)
    start_run(page)
    dialog = page.get_by_test_id("approval")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Step 1: the model asks to run delete_note")
    expect(dialog).to_contain_text('"note_id": "n5"')
    expect(page.get_by_test_id("output")).to_contain_text("asking…")  # the run is paused, not done
    expect(page.get_by_test_id("reject")).to_be_focused()  # the safe choice has the focus
    page.get_by_test_id("approve").click()
    wait_run_end(page)
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("output")).to_contain_text("stopped: final | deleted: ['n5']")
    expect(page.get_by_test_id("output")).to_contain_text("tool message: ['deleted n5']")


def test_reject_with_a_reason_stops_for_a_person_and_answers_the_call(page, site_url):
    open_lesson(page, site_url, APPROVAL)
    start_run(page)
    dialog = page.get_by_test_id("approval")
    expect(dialog).to_be_visible()
    dialog.locator("[data-role=approval-reason]").fill("n5 is still needed")
    page.get_by_test_id("reject").click()
    wait_run_end(page)
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("stopped: needs_person | deleted: []")
    expect(output).to_contain_text("error: a person has not approved delete_note: n5 is still needed")
    assert "2 of 2 checks passed" in status(page)["text"]


def test_escape_rejects_without_a_reason(page, site_url):
    open_lesson(page, site_url, APPROVAL)
    start_run(page)
    expect(page.get_by_test_id("approval")).to_be_visible()
    page.keyboard.press("Escape")
    wait_run_end(page)
    expect(page.get_by_test_id("output")).to_contain_text("stopped: needs_person | deleted: []")
    expect(page.get_by_test_id("output")).to_contain_text(
        "tool message: ['error: a person has not approved delete_note']"
    )


@pytest.mark.plain_host
def test_stop_during_a_pause_ends_the_run_and_closes_the_dialog(page, site_url):
    open_lesson(page, site_url, APPROVAL)
    start_run(page)
    expect(page.get_by_test_id("approval")).to_be_visible()
    stop_kept_python(page, press=lambda: page.keyboard.press("Control+."))  # the Stop shortcut works in the dialog
    expect(page.get_by_test_id("approval")).to_be_hidden()
    output = page.get_by_test_id("output")
    expect(output).to_contain_text("Stopped: KeyboardInterrupt.")  # an interrupt, not a restart
    expect(output).not_to_contain_text("stopped: final")
    start_run(page)  # Python is still there: it asks again
    expect(page.get_by_test_id("approval")).to_be_visible()
    page.get_by_test_id("approve").click()
    wait_run_end(page)
    expect(output).to_contain_text("stopped: final | deleted: ['n5']")


def test_a_page_that_is_not_isolated_refuses_by_default_and_says_so(browser, site_dir):
    # A plain static server (no COOP/COEP headers) and no service worker to add them (blocked):
    # no shared memory, so no pause.
    server = PlainServer(site_dir)
    context = browser.new_context(service_workers="block")
    guard(context)
    try:
        page = context.new_page()
        page.goto(f"{server.url}#/{APPROVAL}")
        wait_ready(page, APPROVAL)
        assert page.evaluate("crossOriginIsolated") is False
        assert "Stop restarts Python (page is not cross-origin isolated" in status(page)["text"]
        page.get_by_test_id("run").click()  # no pause: the run goes on at once
        wait_run_end(page)
        dialog = page.get_by_test_id("approval")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("not cross-origin isolated")
        expect(page.get_by_test_id("approve")).to_be_hidden()
        expect(page.get_by_test_id("output")).to_contain_text("stopped: needs_person | deleted: []")
        expect(page.get_by_test_id("output")).to_contain_text("refused by default")
        dialog.get_by_role("button", name="OK").click()
        expect(dialog).to_be_hidden()
    finally:
        context.close()
        server.stop()
