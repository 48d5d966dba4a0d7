"""input() in the page: the prompt and an answer field in the Output panel (looplab/_course/stdin.py,
page/panels/stdin.js), Python waiting on the ask channel; Stop while it waits; the sentence on a page that
is not cross-origin isolated."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from learner import checks, open_lesson, set_code, start_run, status, stop_kept_python, wait_ready, wait_run_end

ASKS = """
import sys
name = input("Your name? ")
empty = input("Press Enter: ")
line = sys.stdin.readline()
print(f"hello {name}! empty={empty!r} line={line!r}")
result = {"stopped": "final", "answer": "5"}
"""


@pytest.mark.plain_host
def test_input_asks_in_the_output_panel_and_enter_answers(page, site_url):
    open_lesson(page, site_url)
    set_code(page, ASKS)
    start_run(page)
    field = page.get_by_test_id("stdin")
    expect(field).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("output")).to_contain_text("Your name?")
    expect(field).to_be_focused()
    field.fill("Alice")
    field.press("Enter")
    expect(page.get_by_test_id("output")).to_contain_text("Your name? Alice")  # the answer stays, as in a terminal
    expect(page.get_by_test_id("output")).to_contain_text("Press Enter:")
    page.get_by_test_id("stdin").press("Enter")  # an empty answer
    expect(page.locator("[data-testid=output] [data-role=stdin-line]")).to_have_count(1)
    page.get_by_test_id("stdin").fill("from readline")
    page.get_by_test_id("stdin").press("Enter")
    wait_run_end(page)
    expect(page.get_by_test_id("output")).to_contain_text("hello Alice! empty='' line='from readline\\n'")
    assert page.get_by_test_id("stdin").count() == 0
    assert [c.ok for c in checks(page)] == [True, True]


def test_stop_while_input_waits_ends_the_run_and_the_next_run_works(page, site_url):
    open_lesson(page, site_url)
    set_code(page, 'x = input("Waiting: ")\nresult = {"stopped": "final", "answer": "5"}\n')
    start_run(page)
    expect(page.get_by_test_id("stdin")).to_be_visible(timeout=20_000)
    stop_kept_python(page)  # interrupted within the page's grace, not restarted
    assert status(page)["text"].startswith("Stopped")
    assert page.get_by_test_id("stdin").count() == 0  # the field went with the run
    expect(page.get_by_test_id("output")).to_contain_text("KeyboardInterrupt")

    wait_ready(page)
    set_code(page, 'result = {"stopped": "final", "answer": "5"}\n')
    page.get_by_test_id("run").click()
    wait_run_end(page)
    assert [c.ok for c in checks(page)] == [True, True]


def test_without_isolation_input_raises_eof_error_saying_why(not_isolated_context, site_url):
    page = not_isolated_context.new_page()
    open_lesson(page, site_url)
    assert page.evaluate("() => self.crossOriginIsolated") is False
    set_code(page, 'name = input("Your name? ")\n')
    page.get_by_test_id("run").click()
    wait_run_end(page)
    output = page.get_by_test_id("output").inner_text()
    assert "EOFError: input() cannot wait for your answer here: this page is not cross-origin isolated" in output, (
        output
    )
    assert "reload" in output and page.get_by_test_id("stdin").count() == 0
    assert not checks(page)[0].ok
