"""Code from elsewhere is marked (web/src/page/lesson/foreign.js): a lesson opened from a share link, an
imported progress file or an imported notebook shows the `foreign-code` banner and runs on the
scripted model — nothing reaches the live endpoint — until the learner chooses their model for it
with one click. The learner's own edits never show it."""

from __future__ import annotations

from playwright.sync_api import expect

from fakeserver import chat_call, chat_text
from learner import FIXTURE, code_of, configure_live, open_lesson, run, set_code, set_mode, wait_ready
from test_key import exercise_source, share_link

KEY = "e2e-secret-key-4242"
BANNER = "Code from {} — read it before you run it with your key."


def live_page(page, site_url, fake):
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY)
    set_mode(page, "live")


def runs_scripted(page, fake) -> None:
    """A run of the lesson on screen: its checks pass on the scripted model; the endpoint hears nothing."""
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results
    assert fake.requests == []  # live mode is on, yet nothing went out
    expect(page.get_by_test_id("model-toggle")).to_have_attribute("data-mode", "live")  # the learner's choice stands


def test_a_link_starts_on_the_scripted_model_until_one_click_chooses_live(page, site_url, site_dir, fake):
    live_page(page, site_url, fake)
    # The link's code knows the endpoint and calls it itself: on the scripted start, without the key.
    code = f'import looplab.http\nprint("code from a link", looplab.http.get_json({fake.url!r} + "/models")[0])\n'
    page.goto(share_link(site_url, site_dir, code + exercise_source(site_dir)))
    wait_ready(page, FIXTURE)
    banner = page.get_by_test_id("foreign-code")
    expect(banner).to_contain_text(BANNER.format("a link"))
    expect(banner).to_have_attribute("data-from", "link")
    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results
    expect(page.get_by_test_id("output")).to_contain_text("code from a link 200")
    assert [(r.method, r.path, r.headers.get("authorization")) for r in fake.requests] == [("GET", "/v1/models", None)]
    fake.reset()

    banner.get_by_role("button", name="Run it with my live model").click()
    expect(banner).to_have_count(0)
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."), path="/v1/chat/completions")
    assert [ok for ok, _, _ in run(page)] == [True, True]
    posts = fake.posts("/v1/chat/completions")  # now the live model, as chosen,
    assert len(posts) == 2 and posts[0].headers["authorization"] == f"Bearer {KEY}"
    models = [r for r in fake.requests if r.path == "/v1/models"]  # and the link's own call gets the key too
    assert [r.headers.get("authorization") for r in models] == [f"Bearer {KEY}"]
    page.reload()  # chosen once: not asked again
    wait_ready(page, FIXTURE)
    expect(page.get_by_test_id("lesson-text")).to_contain_text("E2E fixture")
    expect(page.get_by_test_id("foreign-code")).to_have_count(0)
    assert "code from a link" in code_of(page)


def test_own_edits_show_no_banner_but_the_same_edits_imported_from_a_file_do(page, site_url, fake, tmp_path):
    live_page(page, site_url, fake)
    set_code(page, 'print("my own code")\n' + code_of(page))
    expect(page.get_by_test_id("foreign-code")).to_have_count(0)
    page.reload()
    wait_ready(page, FIXTURE)
    expect(page.get_by_test_id("foreign-code")).to_have_count(0)  # own edits, kept: still no banner
    assert "my own code" in code_of(page)
    with page.expect_download() as download:
        page.locator("[data-role=export]").click()
    download.value.save_as(tmp_path / "progress.json")

    page.set_input_files("[data-role=import]", str(tmp_path / "progress.json"))
    banner = page.get_by_test_id("foreign-code")
    expect(banner).to_contain_text(BANNER.format("a progress file"))
    expect(banner).to_have_attribute("data-from", "progress file")
    runs_scripted(page, fake)
    expect(page.get_by_test_id("output")).to_contain_text("my own code")


def test_an_imported_notebook_is_marked_and_starts_scripted(page, site_url, fake, tmp_path):
    live_page(page, site_url, fake)
    set_code(page, 'print("from the notebook")\n' + code_of(page))
    with page.expect_download() as download:
        page.locator("[data-role=notebook]").click()
    download.value.save_as(tmp_path / "lesson.ipynb")
    page.get_by_test_id("reset").click()
    expect(page.get_by_test_id("editor").first).not_to_contain_text("from the notebook")
    expect(page.get_by_test_id("foreign-code")).to_have_count(0)

    page.set_input_files("[data-role=import]", str(tmp_path / "lesson.ipynb"))
    banner = page.get_by_test_id("foreign-code")
    expect(banner).to_contain_text(BANNER.format("a notebook"))
    expect(banner).to_have_attribute("data-from", "notebook")
    assert "from the notebook" in code_of(page)
    runs_scripted(page, fake)
    expect(page.get_by_test_id("output")).to_contain_text("from the notebook")
