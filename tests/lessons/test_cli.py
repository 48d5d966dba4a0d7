"""`python -m looplab` in a real subprocess: list, run, exit codes, --solution, --trace, --live."""

import os
import subprocess
from dataclasses import replace
import sys
from pathlib import Path

from looplab._course.course import lesson_files
from looplab._course import corepath
from looplab._course.estimate import RULE, say
from looplab._course.lesson import parse, solution_index, to_text

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from fakeserver import FakeServer, chat_call, chat_text


def clean_env(**env):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    return environment | {"PYTHONPATH": str(ROOT / "py"), "PYTHONIOENCODING": "utf-8", **env}


def looplab(*args, cwd=ROOT, **env):
    return subprocess.run(
        [sys.executable, "-m", "looplab", *args],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_list_names_every_lesson_with_its_title():
    done = looplab("list")
    assert done.returncode == 0, done.stderr
    lines, totals = done.stdout.split("\n\n")  # the listing alone; the folder in use is said on stderr
    lines = lines.splitlines()
    assert done.stderr == f"lessons: {ROOT / 'lessons'} (lessons/ in the current folder)\n"
    assert len(lines) == len(lesson_files(ROOT / "lessons")) >= 16
    assert lines[0].startswith("01-agent-or-workflow.py") and "Agent or workflow?" in lines[0]
    assert "(2 exercises)" in lines[0]


def test_list_marks_the_core_path_and_says_each_lessons_time_and_the_totals():
    listing, totals = looplab("list").stdout.split("\n\n")
    found = corepath.places(ROOT / "lessons")
    rows = dict(zip(found, listing.splitlines()))
    core, every = corepath.totals(found)["core"], corepath.totals(found)["course"]
    assert "core ★" in rows["04"] and f" {say(found['04'].minutes)}  " in rows["04"]
    assert "deepens 04" in rows["03"] and rows["03"].endswith(f"· adds {found['03'].adds}")
    assert sum("core ★" in row for row in rows.values()) == sum(p.core for p in found.values())
    assert totals.splitlines() == [
        f"★ core path: {sum(p.core for p in found.values())} lessons, about {say(core)}; every lesson: about {say(every)}",
        f"estimate: {RULE}",
    ]


def test_a_notebook_goes_to_stdout_alone_and_what_the_command_says_to_stderr(tmp_path):
    """`looplab notebook 4 --solution > nb.ipynb` gives a clean notebook (issue 37)."""
    import nbformat

    done = looplab("notebook", "4", "--solution", cwd=tmp_path)  # stdout a pipe, no -o
    assert done.returncode == 0, done.stderr
    notebook = nbformat.reads(done.stdout, as_version=4)  # the whole of stdout is the notebook
    nbformat.validate(notebook)
    assert notebook.metadata["looplab"]["solution"] is True
    assert done.stderr.startswith("lessons: ") and "wrote" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no file besides
    assert looplab("notebook", "4", "--solution", "-o", "-", cwd=tmp_path).stdout == done.stdout

    written = looplab("notebook", "4", "-o", "four.ipynb", cwd=tmp_path)
    assert written.returncode == 0 and written.stdout == ""
    assert "wrote four.ipynb (starter code)" in written.stderr.splitlines()[-1]
    nbformat.validate(nbformat.read(tmp_path / "four.ipynb", as_version=4))


def closed_pipe(*args) -> subprocess.CompletedProcess:
    """Run looplab with its stdout a pipe whose reader is gone (`looplab list | head`, head done)."""
    read, write = os.pipe()
    os.close(read)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    environment.update(PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8")
    try:
        return subprocess.run(
            [sys.executable, "-m", "looplab", *args],
            cwd=ROOT,
            env=environment,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)


def test_a_closed_pipe_ends_the_command_quietly():
    """`looplab list | head`: no BrokenPipeError, SIGPIPE's exit code, as a Unix tool's (issue 37)."""
    for args in (["list"], ["run", "4", "--solution"]):
        done = closed_pipe(*args)
        assert done.returncode == 141, (args, done.stderr)
        assert done.stderr.startswith("lessons: ") and "Error" not in done.stderr, (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1, (args, done.stderr)


def test_a_solved_lesson_passes_and_exits_zero():
    done = looplab("run", "lessons/04-the-loop.py", "--solution")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scripted model · solution code" in done.stdout
    assert "Eastside, by 205." in done.stdout  # the lesson's own output is shown
    assert "✗" not in done.stdout and done.stdout.count("✓") == 21
    assert "21 of 21 checks passed." in done.stdout


def test_a_starter_fails_its_checks_and_says_why():
    done = looplab("run", "4")  # a lesson number works too
    assert done.returncode == 1
    assert "✗ your test catches the loop that makes one call too many" in done.stdout
    assert "count the model's calls, and use a model that never runs out" in done.stdout
    assert "--solution runs it solved" in done.stdout and "--hints" in done.stdout


def test_a_cell_that_raises_fails_the_run(tmp_path):
    lesson = tmp_path / "99-broken.py"
    lesson.write_text(
        '# %% [markdown]\n# # Broken\n\n# %%\nraise ValueError("boom")\n\n'
        '# %% tags=["check"]\n# never reached\nassert True\n',
        encoding="utf-8",
    )
    done = looplab("run", str(lesson))
    assert done.returncode == 1
    assert "A cell raised an exception" in done.stdout and "ValueError: boom" in done.stdout
    assert "✗ never reached" in done.stdout


def test_an_unknown_lesson_exits_two():
    done = looplab("run", "does-not-exist")
    assert done.returncode == 2 and "python -m looplab list" in done.stderr


def test_trace_prints_the_events():
    done = looplab("run", "03", "--solution", "--trace")
    assert done.returncode == 0, done.stdout
    done = looplab("run", "05", "--solution", "--trace")
    assert "· step 1 tool_call count_words" in done.stdout and "· stop final after 2 steps" in done.stdout


def test_live_runs_against_the_configured_endpoint_and_never_prints_the_key():
    key = "sk-cli-test-key-0123456789abcdef"
    with FakeServer(key=key) as fake:
        done = looplab(
            "run", "1", "--live", "--solution", LLM_BASE_URL=fake.url, LLM_API_KEY=key, LLM_MODEL="fake-model"
        )
        posts = fake.posts("/v1/chat/completions")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "live model" in done.stdout
    assert posts and posts[0].body["model"] == "fake-model"
    assert key not in done.stdout and key not in done.stderr


def test_live_without_settings_says_what_to_set():
    done = looplab("run", "1", "--live", "--solution")
    assert done.returncode == 1
    assert "LLM_BASE_URL" in done.stdout


FORMAT_LESSON = """# %% [markdown]
# # Format

# %% [markdown] tags=["predict"]
# How many greetings will print?
#
# - [ ] one
# - [x] two
#
# The loop runs twice.

# %%
from looplab import expect
for _ in range(2):
    print("hello from the cell")

# %% tags=["exercise"]
reply = "Chas, Alex."

# %% [markdown] tags=["hint"]
# The name is in the first message.

# %% [markdown] tags=["hint"]
# Write `reply = "Chris"`.

# %% tags=["solution"]
reply = "Chris"

# %% tags=["check"]
# the reply names Chris
expect("Chris" in reply, f"the reply was {reply!r}", observed=f"the model answered {reply!r}")
# the reply is text
assert isinstance(reply, str)
"""


def test_predictions_print_before_the_code_and_hints_on_request(tmp_path):
    lesson = tmp_path / "98-format.py"
    lesson.write_text(FORMAT_LESSON, encoding="utf-8")
    done = looplab("run", str(lesson), "--hints", "1")
    out = done.stdout
    assert done.returncode == 1 and "✗ the reply names Chris" in out
    assert out.index("? Predict: How many greetings will print?") < out.index("hello from the cell")
    assert "    b) two\n  Answer: b) two\n  The loop runs twice." in out
    assert "Hints for exercise 1 (cell 4):\n  1. The name is in the first message." in out
    assert 'Write `reply = "Chris"`' not in out  # only the first hint asked for
    every = looplab("run", str(lesson), "--hints").stdout
    assert '  2. Write `reply = "Chris"`.' in every and "Hints for exercise 1" not in looplab("run", str(lesson)).stdout


def test_a_claim_for_prepared_replies_is_not_checked_live(tmp_path):
    lesson = tmp_path / "98-format.py"
    lesson.write_text(FORMAT_LESSON, encoding="utf-8")
    done = looplab("run", str(lesson), "--live", LLM_BASE_URL="http://127.0.0.1:9", LLM_MODEL="m")
    out = done.stdout
    assert done.returncode == 0, out
    assert "– the reply names Chris  (not checked)\n      the model answered 'Chas, Alex.'" in out
    assert "✓ the reply names Chris" not in out and "✓ the reply is text" in out
    assert "1 of 1 checks passed · 1 not checked with a live model." in out


def test_ask_person_asks_on_the_terminal(tmp_path):
    script = tmp_path / "approve.py"
    script.write_text(
        "from looplab import Memory, Toolbox, call, final, run_agent, scripted\n"
        "from looplab.approvals import ask_person\n"
        "box = Toolbox()\n"
        "box.register('send', 'Send a mail.', None, lambda: 'sent', needs_approval=True)\n"
        "for _ in range(2):\n"
        "    r = run_agent('Send it.', scripted([call('send'), final('Sent.')]), box, Memory('s'), approve=ask_person)\n"
        "    print(r['stopped'], r.get('detail', ''))\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    done = subprocess.run(
        [sys.executable, str(script)],
        input="y\nnot today\n",
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT / "py")},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Allow send({})? Type y to approve, or a reason to refuse: final" in done.stdout
    assert "needs_person send needs a person's approval: not today" in done.stdout


def solved_02(broken: bool = False) -> str:
    """Lesson 02 as a learner who solved it has it (every exercise holds its solution); `broken`:
    the first exercise's MyToolbox is left without `register` and `run`."""
    cells = parse((ROOT / "lessons" / "02-tools.py").read_text(encoding="utf-8"))
    exercises = [i for i, c in enumerate(cells) if c.role == "exercise"]
    for k, i in enumerate(exercises):
        code = cells[solution_index(cells, i)].source
        if broken and k == 0:
            code = "class MyToolbox:\n    def __init__(self):\n        self.tools = {}\n"
        cells[i] = replace(cells[i], source=code)
    return to_text(cells)


def test_run_with_lessons_dir_makes_mine_read_that_folder(tmp_path):
    folder, elsewhere = tmp_path / "mine", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "02-tools.py").write_text(solved_02(), encoding="utf-8")
    (folder / "03-uses.py").write_text(
        "# %% [markdown]\n# # Uses lesson 02\n\n# %%\nfrom looplab import mine\nmy = mine(2)\n"
        'print("NOTE:", my.note)\n\n# %% tags=["check"]\n# the toolbox is mine\nassert "MyToolbox" in my.yours\n',
        encoding="utf-8",
    )
    done = looplab("--lessons", str(folder), "run", "3", cwd=elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines()[0] == f"lessons: {folder.resolve()} (given with --lessons)"
    assert "NOTE: From lesson 02: MyToolbox" in done.stdout and "all yours" in done.stdout

    (folder / "02-tools.py").write_text(solved_02(broken=True), encoding="utf-8")
    done = looplab("--lessons", "../mine", "run", "3", cwd=elsewhere)  # relative to where it is typed
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the reference solution: MyToolbox" in done.stdout and "once it passes in lesson 02" in done.stdout
    assert "✗ the toolbox is mine" in done.stdout


BUGGY = {
    "calc/__init__.py": "def double(x):\n    return x + x + 1\n",
    "tests/test_calc.py": "from calc import double\n\n\ndef test_two():\n    assert double(2) == 4\n",
}


def test_project_runs_lesson_25s_agent_on_a_copy_of_your_folder_and_writes_a_patch(tmp_path):
    """`looplab run 25 --live --project DIR` against the fake server playing a model that fixes the
    bug: DIR is never written, the tests pass in the copy, the change is a patch that git applies."""
    mine = tmp_path / "mine"
    for name, text in BUGGY.items():
        (mine / name).parent.mkdir(parents=True, exist_ok=True)
        (mine / name).write_text(text)
    key = "sk-project-test-key-0123456789"
    fix = {"path": "calc/__init__.py", "old": "return x + x + 1", "new": "return x + x"}
    with FakeServer(key=key) as fake:
        fake.script(
            chat_call("run_tests", {}, id="call_1"),
            chat_call("edit_file", fix, id="call_2"),
            chat_call("run_tests", {}, id="call_3"),
            chat_text("double added one too many; the tests pass."),
        )
        done = subprocess.run(
            [sys.executable, "-m", "looplab", "run", "25", "--live", "--solution", "--project", str(mine)],
            cwd=tmp_path,
            env=clean_env(LLM_BASE_URL=fake.url, LLM_API_KEY=key, LLM_MODEL="fake-model"),
            input="y\n",  # the edit's approval, asked on the terminal with its diff
            capture_output=True,
            text=True,
            timeout=300,
        )
        asked = [m["content"] for m in fake.posts("/v1/chat/completions")[-1].body["messages"] if m["role"] == "tool"]
    assert (mine / "calc/__init__.py").read_text() == BUGGY["calc/__init__.py"]  # your folder as it was
    assert "the project's tests now: 1 passed, 0 failed" in done.stdout, done.stdout[-3000:] + done.stderr
    assert asked[0].startswith("0 passed, 1 failed") and asked[-1].startswith("1 passed, 0 failed")
    patch = tmp_path / "mine-25.patch"
    assert f"in its copy of {mine}" in done.stderr and str(patch) in done.stderr
    assert "-    return x + x + 1\n+    return x + x\n" in patch.read_text()
    applied = subprocess.run(["git", "apply", str(patch)], cwd=mine, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert (mine / "calc/__init__.py").read_text() == "def double(x):\n    return x + x\n"
    assert key not in done.stdout + done.stderr and key not in patch.read_text()


def test_project_needs_a_folder_and_a_model_that_acts():
    missing = looplab("run", "25", "--live", "--project", "/no/such/folder")
    scripted_only = looplab("run", "25", "--project", str(ROOT / "lessons"))
    assert missing.returncode == 2 and "--project /no/such/folder: no such folder" in missing.stderr
    assert scripted_only.returncode == 2 and "add --live" in scripted_only.stderr
