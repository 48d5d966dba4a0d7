"""`make dist`'s wheel in a fresh venv, from a temporary folder: list, run, lessons, notebook,
serve (the page in headless Chromium), --version; and the same sources give the same bytes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import nbformat
import pytest
from fresh import ROOT, SITE, dist

sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))
from fakeserver import FakeServer
from browser import CHROMIUM, CHROMIUM_ARGS
from learner import checks, open_lesson, put_solutions, run
from playwright.sync_api import expect
from looplab import __version__
from looplab._course.course import LESSON_FORMAT, lesson_files

LESSONS = lesson_files(ROOT / "lessons")


def test_make_dist_twice_gives_the_same_bytes_whatever_the_files_times(tmp_path):
    first = dist(tmp_path / "a")
    for path in [LESSONS[3], ROOT / "py" / "looplab" / "loop.py", SITE / "index.html"]:
        os.utime(path)  # a newer modification time must not reach the archives
    second = dist(tmp_path / "b")
    assert (
        [p.name for p in first]
        == [p.name for p in second]
        == [f"looplab-{__version__}-py3-none-any.whl", f"looplab-{__version__}.tar.gz"]
    )
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), f"{a.name} differs between two builds"
    with zipfile.ZipFile(first[0]) as wheel:
        names = wheel.namelist()
        assert {i.date_time for i in wheel.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        entry_points = wheel.read(f"looplab-{__version__}.dist-info/entry_points.txt").decode()
        metadata = wheel.read(f"looplab-{__version__}.dist-info/METADATA").decode()
    assert [n for n in names if n.startswith("looplab/_course/lessons/") and n.endswith(".py")] == [
        f"looplab/_course/lessons/{p.name}" for p in LESSONS
    ]
    assert "looplab/_site/index.html" in names and "looplab/_site/build.json" in names
    # the course machinery beside the library; the authors' wrong answers stay out of the package
    assert "looplab/loop.py" in names and "looplab/_course/lesson.py" in names
    assert not [n for n in names if n.endswith("/wrong.py")]
    assert "looplab = looplab.__main__:main" in entry_points
    assert 'Requires-Dist: openai>=3; extra == "openai"' in metadata and "Provides-Extra: test" in metadata
    with tarfile.open(first[1]) as sdist:
        members = sdist.getmembers()
    top = f"looplab-{__version__}/"
    assert {m.mtime for m in members} == {315532800} and {m.uname for m in members} == {""}
    assert {
        top + "pyproject.toml",
        top + "PKG-INFO",
        top + "scripts/dist.py",
        top + "web/dist/index.html",
        top + "py/looplab/__init__.py",
        top + f"lessons/{LESSONS[0].name}",
    } <= {m.name for m in members}


def test_the_installed_cli_runs_live_against_an_endpoint_without_printing_the_key(installed):
    key = "sk-dist-test-key-0123456789abcdef"
    with FakeServer(key=key) as fake:
        installed.env.update(LLM_BASE_URL=fake.url, LLM_API_KEY=key, LLM_MODEL="fake-model")
        try:
            done = installed.looplab("run", "1", "--live", "--solution")
        finally:
            for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL"):
                installed.env.pop(name)
        posts = fake.posts("/v1/chat/completions")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "01-agent-or-workflow.py · live model · solution code" in done.stdout
    assert posts and posts[0].body["model"] == "fake-model"
    assert key not in done.stdout and key not in done.stderr


def test_the_site_zip_holds_the_built_site_in_one_folder_with_relative_addresses(tmp_path):
    [archive] = dist(tmp_path, "--site-zip")
    assert archive.name == f"looplab-site-{__version__}.zip"
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        page = z.read(f"looplab-site-{__version__}/index.html").decode()
        index = json.loads(z.read(f"looplab-site-{__version__}/lessons/index.json"))
        build = json.loads(z.read(f"looplab-site-{__version__}/build.json"))
    served = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*") if p.is_file())
    assert names == [f"looplab-site-{__version__}/{name}" for name in served]
    # Any sub-path: no address in the page starts at the host's root.
    assert not re.findall(r'(?:src|href)="/(?!/)', page), "the page has root-relative addresses"
    # The version and the lesson format, in the page's footer, build.json and the lessons' index.
    assert f"Loop Lab {__version__} · lesson format {LESSON_FORMAT}" in page and "__LOOPLAB_VERSION__" not in page
    assert index["format"] == build["lessonFormat"] == LESSON_FORMAT and build["looplab"] == __version__
    assert [item["file"] for item in index["lessons"]] == [p.name for p in LESSONS]


def lesson_rows(listing: str) -> tuple[list[str], list[str]]:
    """`looplab list`'s output: a row a lesson, then after a blank line the totals and the estimate's rule."""
    rows, _, totals = listing.partition("\n\n")
    return rows.splitlines(), totals.splitlines()


def test_a_fresh_venv_lists_runs_and_copies_out_the_course(installed):
    version = installed.looplab("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"looplab {__version__}"

    listed = installed.looplab("list")
    assert listed.returncode == 0, listed.stderr
    rows, totals = lesson_rows(listed.stdout)
    first = listed.stderr.strip()  # the folder in use: on stderr
    assert first.startswith(f"lessons: {installed.venv}") and "came with looplab" in first
    assert [row.split()[0] for row in rows] == [p.name for p in LESSONS]
    assert totals[0].startswith("★ core path: ") and totals[1].startswith("estimate: "), totals

    solved = installed.looplab("run", "4", "--solution")
    assert solved.returncode == 0, solved.stdout + solved.stderr
    passed = re.search(r"(\d+) of (\d+) checks passed\.", solved.stdout)
    assert passed and passed[1] == passed[2] and int(passed[1]) >= 10, solved.stdout
    assert "✗" not in solved.stdout and "04-the-loop.py · scripted model · solution code" in solved.stdout

    copied = installed.looplab("lessons", "./mine")
    assert copied.returncode == 0, copied.stderr
    mine = installed.work / "mine"
    assert sorted(p.name for p in lesson_files(mine)) == [p.name for p in LESSONS]
    lesson = mine / "04-the-loop.py"
    text = lesson.read_text(encoding="utf-8")
    marker = "# %%\n"
    at = text.index(marker)  # the first code cell: the learner's edit goes there
    lesson.write_text(
        text[: at + len(marker)] + "print('an edit in mine/')\n" + text[at + len(marker) :], encoding="utf-8"
    )

    again = installed.looplab("run", "4")  # from the same folder, not inside mine/
    assert again.stderr.splitlines()[0] == f"lessons: {mine} (your copy, made by `looplab lessons`)"
    assert "an edit in mine/" in again.stdout
    assert again.returncode == 1 and "✗" in again.stdout  # the starter code, as copied: its checks fail

    inside = installed.looplab("list", cwd=mine)
    assert inside.stderr.splitlines()[0] == f"lessons: {mine} (the current folder)"
    listed_again = installed.looplab("list")
    assert listed_again.stderr.splitlines()[0].startswith(f"lessons: {mine} ")

    kept = installed.looplab("lessons", "./mine")  # copying again keeps the learner's edits
    assert kept.returncode == 0 and "an edit in mine/" in lesson.read_text(encoding="utf-8")
    assert f"{len(LESSONS)} of yours kept as they were" in kept.stdout

    book = installed.looplab("notebook", "4", "--solution", "-o", "four.ipynb")
    assert book.returncode == 0, book.stderr
    notebook = nbformat.read(installed.work / "four.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata["looplab"] == {
        "lesson": "04-the-loop",
        "title": notebook.metadata["looplab"]["title"],
        "solution": True,
    }
    assert any("an edit in mine/" in c.source for c in notebook.cells)  # from the learner's copy too

    missing = installed.looplab("run", "99")
    assert missing.returncode == 2 and "no lesson '99'" in missing.stderr

    hinted = installed.looplab("run", "2", "--hints", "1")
    assert hinted.returncode == 1 and "Hints for exercise 1 (cell" in hinted.stdout and "\n  2. " not in hinted.stdout

    no_site = installed.looplab("serve", "--dir", str(installed.work / "nowhere"))
    assert no_site.returncode == 1 and "has no index.html" in no_site.stderr


class Served:
    """`looplab serve --port 0` from the fresh venv (the packaged site, or another folder)."""

    def __init__(self, installed, *args: str):
        self.process = subprocess.Popen(
            [*installed.command(), "serve", "--port", "0", "--quiet", *args],
            cwd=installed.work,
            env=installed.env,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.line = self.process.stdout.readline()
        self.url = self.line.split(" on ", 1)[1].split()[0] if " on http://" in self.line else ""

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def served(installed):
    server = Served(installed)
    try:
        assert server.url and str(installed.venv) in server.line, server.line
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def chromium():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` (apt-get install chromium) installs it")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def test_looplab_serve_serves_the_packaged_site_where_a_lesson_runs_with_every_check(served, chromium):
    page = chromium.new_page()
    outside = []
    page.route(
        "**/*",
        lambda route: (
            (outside.append(route.request.url), route.abort())
            if not route.request.url.startswith(served)
            else route.fallback()
        ),
    )
    open_lesson(page, served, "04-the-loop")
    assert page.evaluate("crossOriginIsolated") is True  # looplab serve sent COOP/COEP
    put_solutions(page)
    shown = run(page)
    assert len(shown) >= 10 and all(ok for ok, _, _ in shown), checks(page)
    assert page.get_by_test_id("version").inner_text() == f"Loop Lab {__version__} · lesson format {LESSON_FORMAT}"
    assert outside == []


def test_the_page_refuses_lessons_of_another_format(installed, chromium, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(
        installed.venv
        / "lib"
        / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        / "site-packages"
        / "looplab"
        / "_site",
        site,
    )
    index = json.loads((site / "lessons" / "index.json").read_text())
    (site / "lessons" / "index.json").write_text(json.dumps({**index, "format": LESSON_FORMAT + 1}))
    server = Served(installed, "--dir", str(site))
    try:
        page = chromium.new_page()
        page.goto(server.url)
        said = f"these lessons are in lesson format {LESSON_FORMAT + 1}, and this page reads format {LESSON_FORMAT}"
        expect(page.get_by_test_id("lesson-text").get_by_role("alert")).to_contain_text(said, timeout=60_000)
        expect(page.get_by_test_id("status")).to_have_attribute("data-stage", "ready", timeout=90_000)
        expect(page.get_by_test_id("lesson-text")).to_contain_text(said)  # still said once Python is ready
        assert page.locator("[data-testid=lesson-list] li").count() == 0 and page.get_by_test_id("run").is_disabled()
    finally:
        server.stop()


def test_pip_builds_the_same_wheel_from_the_sdist_and_from_the_checkout(tmp_path, built, wheel):
    """scripts/dist.py is pyproject's build backend: pip needs no setuptools and no network."""
    sdist = next(p for p in built if p.name.endswith(".tar.gz"))
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    for source, out in [
        (tmp_path / "unpacked" / f"looplab-{__version__}", tmp_path / "from-sdist"),
        (ROOT, tmp_path / "from-checkout"),
    ]:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-index",
                "--quiet",
                "--disable-pip-version-check",
                "-w",
                str(out),
                str(source),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        [built] = out.glob("*.whl")
        assert built.name == wheel.name and built.read_bytes() == wheel.read_bytes(), source


def test_an_editable_install_runs_the_checkouts_code_and_lessons(tmp_path):
    """pip install -e . (scripts/dist.py's build_editable: a .pth file that puts py/ on the path)."""
    import venv

    venv.EnvBuilder(with_pip=True).create(tmp_path / "venv")
    python = str(tmp_path / "venv" / "bin" / "python")
    done = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--quiet", "--disable-pip-version-check", "-e", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LOOPLAB_", "XDG_CONFIG"))}
    where = subprocess.run(
        [python, "-c", "import looplab; print(looplab.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.stdout.strip() == str(ROOT / "py" / "looplab" / "__init__.py")
    listed = subprocess.run(
        [str(tmp_path / "venv" / "bin" / "looplab"), "list"],
        cwd=tmp_path,
        env={**env, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    (rows, _), first = lesson_rows(listed.stdout), listed.stderr.strip()
    assert first.startswith(f"lessons: {ROOT / 'lessons'} (this source checkout's lessons/;")
    assert len(rows) == len(LESSONS)
