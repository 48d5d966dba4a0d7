"""The Files panel: lesson 25's coding agent runs in the page, the panel shows the project and the diff
of what the run changed, an edit's approval shows its diff and a rejection leaves the file as it was,
and Reset project lays the project out again."""

from __future__ import annotations

from playwright.sync_api import expect

from learner import cell, checks, open_lesson, put_solutions, set_code, start_run, wait_run_end

SLUG = "25-coding-agent"
LONG_RUN = 240_000  # pytest loads from the site once, then runs the project's tests a few times
FIXED = [
    "-    for item in items[1:]:",
    "+    for item in items:",
    '-            item["units"] = units',
    '+            item["units"] += units',
]


def code_cell_with(page, text: str) -> int:
    """The index, among the lesson's code cells, of the one whose code holds `text`."""
    cells = page.locator('[data-testid="editor"].cell-code')
    expect(cells.first).to_be_visible()
    found = [i for i, code in enumerate(cells.all_inner_texts()) if text in code]
    assert len(found) == 1, f"{len(found)} code cells hold {text!r}"
    return found[0]


def open_files(page):
    tab = page.locator(".panel-tabs [data-panel=files]")
    expect(tab).to_be_visible()
    tab.click()
    panel = page.get_by_test_id("files")
    expect(panel).to_be_visible()
    return panel


def view(page, path: str):
    """Open a file of the project in the panel; its text as shown."""
    page.get_by_test_id("files").locator(f'button[data-path="{path}"]').click()
    shown = page.get_by_test_id("files").locator("[data-role=file-text]")
    expect(page.get_by_test_id("files").locator("#files-view-title")).to_have_text(path)
    return shown


def test_lesson_25_runs_the_files_panel_shows_its_diff_approvals_show_theirs_and_reset_restores(page, site_url):
    open_lesson(page, site_url, SLUG)
    expect(page.locator(".panel-tabs [data-panel=files]")).to_be_hidden()  # no project before a run
    put_solutions(page)
    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=LONG_RUN)
    failed = [(name, message) for ok, name, message in checks(page) if not ok]
    assert not failed and len(checks(page)) >= 10, failed

    # The panel: the project's tree, the diff of the three fixes, each file viewable
    panel = open_files(page)
    diff = page.get_by_test_id("files-diff")
    expect(diff).to_contain_text("--- a/inventory/stock.py")
    lines = diff.inner_text().splitlines()
    assert all(line in lines for line in FIXED), lines
    assert not [line for line in lines if "tests/test_stock.py" in line]  # the tests were not touched
    expect(panel).to_contain_text("4 files, 1 changed by the last run")
    expect(panel.locator('button[data-path="inventory/stock.py"]')).to_contain_text("(changed)")
    expect(view(page, "inventory/stock.py")).to_contain_text("for item in items:\n")
    expect(view(page, "tests/test_stock.py")).to_contain_text("def test_restock_adds_to_what_is_there")

    # Reset project: the files as the lesson laid them out, and no diff
    page.get_by_test_id("files-reset").click()
    expect(diff).to_contain_text("No changes: the project is as the lesson laid it out.")
    expect(panel).to_contain_text("4 files, none changed")
    expect(view(page, "inventory/stock.py")).to_contain_text("for item in items[1:]:")

    # An edit the learner is asked about: the dialog shows its diff; rejected, the file stays as it was
    nth = code_cell_with(page, "approve = yes if")
    code = cell(page, "code", nth).locator(".cm-content").inner_text()
    set_code(
        page,
        code.replace(
            'approve = yes if model_mode() == "scripted" else review_edits(project)', "approve = review_edits(project)"
        ),
        "code",
        nth,
    )
    start_run(page)
    dialog = page.get_by_test_id("approval")
    expect(dialog).to_be_visible(timeout=LONG_RUN)
    expect(dialog).to_contain_text("he model asks to run edit_file with these arguments")
    asked = page.get_by_test_id("approval-diff")
    expect(asked).to_be_visible()
    assert asked.inner_text().splitlines()[:2] == ["--- a/inventory/stock.py", "+++ b/inventory/stock.py"]
    assert {"-    for item in items[1:]:", "+    for item in items:"} <= set(asked.inner_text().splitlines())
    page.get_by_test_id("reject").click()
    wait_run_end(page, timeout=LONG_RUN)
    expect(page.get_by_test_id("output")).to_contain_text("'stopped': 'needs_person'")
    panel = open_files(page)
    expect(diff).to_contain_text("No changes: the project is as the lesson laid it out.")
    expect(view(page, "inventory/stock.py")).to_contain_text("for item in items[1:]:")
    expect(page.locator("[data-panel-body=files]")).not_to_have_attribute("data-stale", "true")


def test_another_lesson_has_no_files_tab(page, site_url):
    open_lesson(page, site_url, "94-e2e-files")
    page.get_by_test_id("run").click()
    wait_run_end(page)
    panel = open_files(page)
    expect(page.get_by_test_id("files-diff")).to_contain_text("-    return units * 3")
    expect(panel).to_contain_text("2 files, 1 changed by the last run")
    page.evaluate("() => { location.hash = '#/90-e2e-agent'; }")
    expect(page.locator(".panel-tabs [data-panel=files]")).to_be_hidden()
    expect(page.locator(".panel-tabs [data-panel=output]")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("output")).to_be_visible()
