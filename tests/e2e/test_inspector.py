"""The run inspector in the page: step through a run, fork it from a step, see an approval pause,
export and import a run (JSON and OpenTelemetry), share a link, download the lesson as a notebook."""

from __future__ import annotations

import base64
import json
import os
import re
import zlib
from urllib.parse import urlsplit

import nbformat
from playwright.sync_api import expect

from browser import wait_until
from conftest import guard
from learner import cell, open_lesson, put_solutions, run, set_code, start_run, wait_ready, wait_run_end
from otlp import parse_otlp, spans as all_spans

INSPECT = "93-e2e-inspect"  # tests/e2e/fixtures/93-e2e-inspect.py: three runs of run_agent
KEY = "sk-proj-inspectorKEY0123456789abcdef"


def trace_tab(page):
    page.get_by_role("tab", name="Trace").click()
    return page.locator("[data-role=inspector]")


def open_run(page, nth: int):
    page.get_by_test_id("trace-runs").locator("button").nth(nth).click()


def step_text(page) -> str:
    return page.get_by_test_id("trace-step").inner_text()


def test_step_through_lesson_15s_run_forward_and_back(page, site_url):
    # Lesson 15's learner-built agent emits no looplab events; its "hardened version" cell runs
    # looplab's run_agent twice: those two runs are what the inspector steps through.
    open_lesson(page, site_url, "15-the-whole-thing")
    put_solutions(page)
    assert all(ok for ok, _, _ in run(page))
    inspector = trace_tab(page)
    runs = page.get_by_test_id("trace-runs").locator("button")
    expect(runs).to_have_count(2)
    open_run(page, 0)  # the reply with a call that has no id
    expect(page.get_by_test_id("trace-step")).to_have_text("step 1 of 2")
    step = inspector.locator(".insp-step")
    expect(step).to_contain_text("add")  # the call, given an id of looplab's
    expect(step).to_contain_text("error: the tool call had no id")
    expect(step).to_contain_text("Context sent: 2 messages")
    page.get_by_test_id("trace-next").click()
    expect(page.get_by_test_id("trace-step")).to_have_text("step 2 of 2")
    expect(step).to_contain_text("Stop: final after 2 steps: done")
    expect(page.get_by_test_id("trace-next")).to_be_disabled()
    page.get_by_test_id("trace-prev").click()
    expect(page.get_by_test_id("trace-step")).to_have_text("step 1 of 2")
    page.get_by_test_id("trace-next").focus()  # the keys work where the focus is in the inspector
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("trace-step")).to_have_text("step 2 of 2")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("trace-step")).to_have_text("step 1 of 2")
    # the context of step 2 lists every message with its size, by role, and the totals
    page.get_by_test_id("trace-next").click()
    step.locator(".insp-context summary").click()
    sizes = step.locator(".insp-ctx .msg-tokens").all_inner_texts()
    assert len(sizes) == 4 and all(s.endswith(" tokens") for s in sizes), sizes
    expect(step.locator(".insp-context summary")).to_contain_text("system")


def test_play_and_the_scrubber_walk_a_longer_run(page, site_url):
    open_lesson(page, site_url, INSPECT)
    run(page)
    trace_tab(page)
    open_run(page, 2)
    expect(page.get_by_test_id("trace-step")).to_have_text("step 1 of 4")
    page.locator(".insp-scrubber").fill("3")
    expect(page.get_by_test_id("trace-step")).to_have_text("step 3 of 4")
    page.get_by_test_id("trace-play").click()
    expect(page.get_by_test_id("trace-step")).to_have_text("step 4 of 4", timeout=5_000)
    expect(page.get_by_test_id("trace-play")).to_have_attribute("aria-pressed", "false")  # it stops at the end
    expect(page.locator(".insp-step")).to_contain_text("1 + 2 = 3. 3 + 3 = 6. 4 + 6 = 10.")


def test_fork_a_tool_result_and_see_the_outcome_change(page, site_url):
    open_lesson(page, site_url, INSPECT)
    run(page)
    inspector = trace_tab(page)
    for nth, before, after in ((0, "2 + 3 = 5.", "2 + 3 = 7."), (1, "It is 5.", "It is 7.")):
        open_run(page, nth)  # the rule-based model, then a scripted one
        page.get_by_test_id("fork").click()
        editor = page.get_by_test_id("fork-editor")
        expect(editor).to_have_value("5")  # step 1's tool result
        editor.fill("7")
        page.get_by_test_id("fork-run").click()
        compare = page.get_by_test_id("trace-fork")
        expect(compare).to_be_visible()
        expect(compare.locator("[data-role=first-difference]")).to_have_text("first differs at step 1")
        expect(compare.locator("[data-role=original] [data-field=answer]")).to_have_text(before)
        expect(compare.locator("[data-role=fork] [data-field=answer]")).to_have_text(after)
        expect(compare.locator("[data-role=fork] [data-field=stopped]")).to_have_text("final")
        expect(inspector.locator(".insp-step h3")).to_contain_text("first step that differs")
    runs = page.get_by_test_id("trace-runs").locator("button")
    expect(runs).to_have_count(5)
    expect(runs.nth(3)).to_contain_text("fork of #1 at step 1")
    # a fork of a fork: the edited step is replayed now, step 2 gets a new reply
    page.get_by_test_id("trace-next").click()
    page.get_by_test_id("fork").click()
    page.locator(".insp-forkbox select").select_option(label="the model's reply")
    page.get_by_test_id("fork-editor").fill("Forty-two.")
    page.get_by_test_id("fork-run").click()
    expect(page.get_by_test_id("trace-fork").locator("[data-role=fork] [data-field=answer]")).to_have_text("Forty-two.")
    expect(page.get_by_test_id("trace-fork").locator("[data-role=first-difference]")).to_have_text(
        "first differs at step 2"
    )


def test_an_approval_pause_shows_on_the_timeline(page, site_url):
    open_lesson(page, site_url, "92-e2e-approval")
    start_run(page)
    expect(page.get_by_test_id("approval")).to_be_visible()
    pause = page.locator("[data-role=inspector] [data-role=approval-pause]")
    expect(pause).to_have_count(1)  # drawn while the dialog waits
    assert "delete_note waits for a person" in pause.text_content()
    expect(page.get_by_test_id("trace-runs")).to_contain_text("paused: asking a person")
    page.get_by_test_id("approve").click()
    wait_run_end(page)
    trace_tab(page)
    expect(pause).to_have_count(0)
    page.get_by_test_id("trace-runs").locator("button").first.click()
    expect(page.locator(".insp-step")).to_contain_text("approved by a person")


def download(page, testid: str):
    with page.expect_download() as info:
        page.get_by_test_id(testid).click()
    path = info.value.path()
    return info.value.suggested_filename, path.read_text(encoding="utf-8")


def test_export_then_import_gives_the_same_run(browser, site_url, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    guard(context)
    page = context.new_page()
    open_lesson(page, site_url, INSPECT)
    run(page)
    trace_tab(page)
    open_run(page, 2)
    name, text = download(page, "export-run")
    data = json.loads(text)
    assert name == f"loop-lab-{INSPECT}-run-3.json" and data["format"] == "looplab-run" and data["run"] == 3
    assert [e["type"] for e in data["events"]][:2] == ["run_start", "model_call"] and data["events"][-1][
        "type"
    ] == "stop"
    context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    guard(context)
    page = context.new_page()
    open_lesson(page, site_url, "90-e2e-agent")  # another lesson, nothing run
    trace_tab(page)
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        page.get_by_test_id("import-run").click()
    chooser.value.set_files(str(path))
    expect(page.get_by_test_id("trace-runs")).to_contain_text("imported")
    expect(page.get_by_test_id("trace-step")).to_have_text("step 1 of 4")
    page.get_by_test_id("trace-next").click()
    expect(page.get_by_test_id("trace-step")).to_have_text("step 2 of 4")
    expect(page.get_by_test_id("fork")).to_be_disabled()  # its model and tools are not in this page
    _, again = download(page, "export-run")
    assert json.loads(again) == data  # lossless: the same document
    context.close()


def test_the_opentelemetry_export_parses_as_otlp(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    guard(context)
    page = context.new_page()
    open_lesson(page, site_url, "23-several-agents")
    put_solutions(page)
    run(page)
    trace_tab(page)
    runs = page.get_by_test_id("trace-runs").locator("button")
    writer = next(i for i in range(runs.count()) if runs.nth(i).inner_text().startswith("writer"))
    runs.nth(writer).click()
    _, text = download(page, "export-otel")
    spans = all_spans(parse_otlp(text))
    attrs = {s.span_id: {a.key: a.value for a in s.attributes} for s in spans}
    ops = [attrs[s.span_id]["gen_ai.operation.name"].string_value for s in spans]
    assert {"invoke_agent", "chat", "execute_tool"} <= set(ops)
    agents = {
        attrs[s.span_id]["gen_ai.agent.name"].string_value: s
        for s in spans
        if attrs[s.span_id]["gen_ai.operation.name"].string_value == "invoke_agent"
    }
    assert {"writer", "researcher"} <= set(agents)
    by_id = {s.span_id: s for s in spans}
    # the researcher's run sits under the writer's tool call that asked it
    asked = by_id[agents["researcher"].parent_span_id]
    assert attrs[asked.span_id]["gen_ai.operation.name"].string_value == "execute_tool"
    assert attrs[asked.span_id]["gen_ai.tool.name"].string_value == "ask_researcher"
    assert attrs[asked.span_id]["gen_ai.tool.call.id"].string_value
    assert by_id[asked.parent_span_id] == agents["writer"]
    chats = [s for s in spans if attrs[s.span_id]["gen_ai.operation.name"].string_value == "chat"]
    assert all(attrs[c.span_id]["gen_ai.usage.input_tokens"].int_value > 0 for c in chats)
    assert all(s.trace_id == spans[0].trace_id and s.end_time_unix_nano >= s.start_time_unix_nano for s in spans)
    context.close()


def shared_payload(link: str) -> dict:
    data = urlsplit(link).fragment.split("?share=", 1)[1]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return json.loads(zlib.decompress(raw, wbits=-15))


def test_a_share_link_opens_in_a_fresh_profile_with_the_edits_and_no_key(page, site_url, fresh_profile):
    open_lesson(page, site_url, "90-e2e-agent")
    page.evaluate(f"() => sessionStorage.setItem('looplab:v1:api-key', '{KEY}')")
    page.reload()
    wait_ready(page, "90-e2e-agent")
    set_code(
        page,
        f'model = pick_model([call("add", a=20, b=22), final("The sum is 42.")])  # {KEY}\n'
        'result = run_agent("What is 20 + 22?", model, box, Memory("You add numbers."), max_steps=4)\n'
        'answer = result["answer"]',
    )
    run(page)
    page.get_by_test_id("share").click()
    expect(page.get_by_test_id("share-url")).to_have_value(re.compile(r"\?share="))  # the link is made async
    link = page.get_by_test_id("share-url").input_value()
    assert KEY not in link and link.startswith(site_url) and len(link) < 32 * 1024
    payload = shared_payload(link)
    assert payload["lesson"] == "90-e2e-agent" and KEY not in json.dumps(payload)
    assert any("a=20, b=22" in source and "[redacted]" in source for source in payload["cells"].values())
    assert payload["run"]["events"][0]["type"] == "run_start"

    other = fresh_profile.new_page()
    other.goto(f"{site_url}#/90-e2e-agent")  # the other learner's own edit first
    wait_ready(other, "90-e2e-agent")
    set_code(
        other,
        'model = pick_model([call("add", a=1, b=1), final("Mine.")])',
    )
    wait_until(other, "() => JSON.stringify(localStorage).includes('Mine.')")  # the own edit is saved
    other.goto(link)
    wait_ready(other, "90-e2e-agent")
    code = cell(other).locator(".cm-content")
    expect(code).to_contain_text("a=20, b=22")  # the shared code is in the lesson
    note = other.locator("[data-role=aside-note]")
    expect(note).to_contain_text("Your own edits to it are kept aside")
    assert "?share=" not in other.url
    assert KEY not in other.content()
    expect(other.get_by_test_id("trace-runs")).to_contain_text("imported")  # the run came too
    note.get_by_role("button", name="Bring back my own edits").click()
    expect(code).to_contain_text("Mine.")  # one click, nothing overwritten
    expect(other.locator("[data-role=aside-note]")).to_contain_text("kept aside")
    storage = other.evaluate("() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")
    assert KEY not in storage and "a=20, b=22" in storage  # the shared code is kept aside in turn


def test_a_link_over_32_kb_is_refused_with_a_message(page, site_url):
    open_lesson(page, site_url, "90-e2e-agent")
    noise = base64.b64encode(os.urandom(40_000)).decode()  # does not compress
    lines = "\n".join(noise[i : i + 100] for i in range(0, len(noise), 100))
    content = cell(page).locator(".cm-content")
    content.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(f'blob = """\n{lines}\n"""')  # (the editor draws only the lines in view)
    page.get_by_test_id("share").click()
    dialog = page.locator("[data-role=share-dialog]")
    expect(dialog).to_contain_text("over the 32 KB a link may hold")
    assert page.get_by_test_id("share-url").input_value() == ""


def test_the_lesson_downloads_as_a_valid_notebook_with_the_edits(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    guard(context)
    page = context.new_page()
    open_lesson(page, site_url, "90-e2e-agent")
    set_code(page, 'model = pick_model([call("add", a=4, b=4), final("The sum is 8.")])\nprint("my edit")')
    with page.expect_download() as info:
        page.locator("[data-role=notebook]").click()
    assert info.value.suggested_filename == "90-e2e-agent.ipynb"
    notebook = nbformat.reads(info.value.path().read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert any('print("my edit")' in c.source for c in code)
    assert any("check" in c.metadata.get("tags", []) for c in code)
    assert notebook.metadata["looplab"]["lesson"] == "90-e2e-agent"
    context.close()
