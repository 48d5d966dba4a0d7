"""The page against llama-server (cross-origin, straight from the browser): Test connection, and one live
lesson run to its end in headless Chromium — llama-server's own CORS headers let the page in."""

from curriculum import KEY
from learner import checks, configure_live, open_lesson, set_mode, try_connection, wait_run_end
from llamaserver import MODEL_NAME
from playwright.sync_api import expect


def test_test_connection_works_against_llama_server(page, site_url, llama):
    open_lesson(page, site_url)
    configure_live(page, llama.url, model=MODEL_NAME, key=KEY)
    outcome, message = try_connection(page)
    assert outcome == "works", message
    assert message.startswith(f"Works: {MODEL_NAME} answered") and KEY not in message


def test_a_live_lesson_runs_to_its_end_in_the_page(page, site_url, llama):
    open_lesson(page, site_url)
    configure_live(page, llama.url, model=MODEL_NAME, key=KEY)
    set_mode(page, "live")
    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=300_000)
    trace = page.get_by_test_id("trace")
    expect(trace).to_contain_text("model reply")  # a real reply came back through CORS
    expect(trace).to_contain_text(" after ")  # and the run ended with a stop reason
    listed = checks(page)
    assert len(listed) == 2, listed  # the checklist was evaluated and shown
    for testid in ("output", "trace", "checks", "status"):
        assert KEY not in page.get_by_test_id(testid).text_content(), testid
    assert KEY not in page.content()
