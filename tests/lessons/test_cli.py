"""`python -m looplab` in a real subprocess: list, run, exit codes, --solution, --trace, --live."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from fakeserver import FakeServer  # noqa: E402


def looplab(*args, cwd=ROOT, **env):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    environment.update(PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8", **env)
    return subprocess.run([sys.executable, "-m", "looplab", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_list_names_every_lesson_with_its_title():
    done = looplab("list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 15
    assert lines[0].startswith("01-agent-or-workflow.py") and "Agent or workflow?" in lines[0]
    assert "(2 exercises)" in lines[0]


def test_a_solved_lesson_passes_and_exits_zero():
    done = looplab("run", "lessons/04-the-loop.py", "--solution")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scripted model · solution code" in done.stdout
    assert "Eastside, by 205." in done.stdout           # the lesson's own output is shown
    assert "✗" not in done.stdout and done.stdout.count("✓") == 9
    assert "9 of 9 checks passed." in done.stdout


def test_a_starter_fails_its_checks_and_says_why():
    done = looplab("run", "4")                           # a lesson number works too
    assert done.returncode == 1
    assert "✗ the ping run stopped at the step limit after three steps" in done.stdout
    assert "this exercise expects 'step_limit': is max_steps 3?" in done.stdout
    assert "add --solution" in done.stdout


def test_a_cell_that_raises_fails_the_run(tmp_path):
    lesson = tmp_path / "99-broken.py"
    lesson.write_text('# %% [markdown]\n# # Broken\n\n# %%\nraise ValueError("boom")\n\n'
                      '# %% tags=["check"]\n# never reached\nassert True\n', encoding="utf-8")
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
        done = looplab("run", "1", "--live", "--solution", LLM_BASE_URL=fake.url, LLM_API_KEY=key,
                       LLM_MODEL="fake-model")
        posts = fake.posts("/v1/chat/completions")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "live model" in done.stdout
    assert posts and posts[0].body["model"] == "fake-model"
    assert key not in done.stdout and key not in done.stderr


def test_live_without_settings_says_what_to_set():
    done = looplab("run", "1", "--live", "--solution")
    assert done.returncode == 1
    assert "LLM_BASE_URL" in done.stdout
