"""projecttests: a project's pytest run in-process (as a coding agent's run_tests does), the same in
CPython and in Pyodide; plus trace.muted, which mine() uses."""

from pathlib import Path

from looplab import trace
from looplab._course.projecttests import TestRun, cut, project_tests
from looplab.trace import Emitter


def project(root: Path, code: str, tests: str) -> Path:
    (root / "calc").mkdir()
    (root / "calc" / "__init__.py").write_text(code)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(tests)
    return root


TESTS = (
    "from calc import double\n\ndef test_two():\n    assert double(2) == 4\n\n"
    "def test_zero():\n    assert double(0) == 0\n"
)


def test_counts_passes_and_failures_with_the_assertion_message(tmp_path):
    run = project_tests(project(tmp_path, "def double(x):\n    return x + x + 1\n", TESTS))
    assert run.passed == [] and [name for name, _ in run.failed] == [
        "tests/test_calc.py::test_two",
        "tests/test_calc.py::test_zero",
    ]
    assert "assert 5 == 4" in run.failed[0][1] and run.summary() == "0 passed, 2 failed" and not run.ok


def test_an_edit_is_seen_by_the_next_run_and_modules_are_forgotten(tmp_path):
    import sys

    root = project(tmp_path, "def double(x):\n    return x * 3\n", TESTS)
    first = project_tests(root)
    (root / "calc" / "__init__.py").write_text("def double(x):\n    return x * 2\n")  # same size
    second = project_tests(root)
    assert first.failed and first.passed == ["tests/test_calc.py::test_zero"]
    assert second.ok and second.summary() == "2 passed, 0 failed"
    assert "calc" not in sys.modules and str(root.resolve()) not in sys.path
    assert not list(root.rglob("*.pyc"))  # no bytecode written beside the project


def test_a_test_file_that_does_not_compile_is_a_sentence_with_its_line(tmp_path):
    root = project(tmp_path, "def double(x):\n    return 2 * x\n", TESTS)
    (root / "tests" / "test_broken.py").write_text("\n\ndef test_x(:\n    pass\n")
    run = project_tests(root)
    assert run.passed == ["tests/test_calc.py::test_two", "tests/test_calc.py::test_zero"]
    assert run.errors == ["tests/test_broken.py could not be collected: SyntaxError: invalid syntax (see line 3)"]
    assert run.summary() == "2 passed, 0 failed, 1 error" and not run.ok


def test_chosen_ids_and_a_missing_path(tmp_path):
    root = project(tmp_path, "def double(x):\n    return 2 * x\n", TESTS)
    one = project_tests(root, ids=["tests/test_calc.py::test_zero"])
    missing = project_tests(root, "nowhere")
    assert one.passed == ["tests/test_calc.py::test_zero"] and one.ok
    assert missing.errors and "'nowhere'" in missing.errors[0] and not missing.ok


def test_cut_keeps_messages_short_and_an_empty_run_is_not_ok():
    assert cut("a\n\nb\n") == "a\nb" and len(cut("x" * 1000)) == 300 and cut("x" * 1000).endswith("…")
    assert not TestRun().ok and TestRun(passed=["t"]).ok


def test_muted_hides_runs_from_listeners_and_restores_them():
    heard = []
    stop = trace.listen(heard.append)
    try:
        with trace.muted():
            Emitter()("run_start", task="quiet")
        Emitter()("run_start", task="loud")
    finally:
        stop()
    assert [e["task"] for e in heard] == ["loud"]


LOGGED = (
    "import pathlib\nfrom calc import double\n\ndef test_two():\n"
    "    with open(pathlib.Path(__file__).parents[2] / 'runs.log', 'a') as log:\n        log.write('ran\\n')\n"
    "    assert double(2) == 4\n"
)


def test_the_same_files_are_not_run_again_an_edit_or_fresh_is(tmp_path):
    """A run is remembered by what the project's files hold (the coding lessons try one fix many
    times); the test here leaves a line outside the project each time pytest really runs it."""
    (tmp_path / "p").mkdir()
    root = project(tmp_path / "p", "def double(x):\n    return x * 3\n", LOGGED)
    log = tmp_path / "runs.log"
    first, again = project_tests(root), project_tests(root)
    assert first.failed and again.failed == first.failed and log.read_text() == "ran\n"
    (root / "calc" / "__init__.py").write_text("def double(x):\n    return x * 2\n")
    edited = project_tests(root)
    assert edited.ok and log.read_text() == "ran\nran\n"
    fresh = project_tests(root, fresh=True)
    assert fresh.ok and log.read_text() == "ran\nran\nran\n"


def test_a_remembered_run_names_the_folder_it_was_asked_for(tmp_path):
    """Two copies of one project: the second run is remembered, and its message names its own folder."""
    where = "import calc\n\ndef test_where():\n    assert calc.__file__ == ''\n"
    runs = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        root = project(tmp_path / name, "def double(x):\n    return 2 * x\n", where)
        runs.append((str(root.resolve()), project_tests(root)))
    (one_root, one), (two_root, two) = runs
    assert [i for i, _ in one.failed] == [i for i, _ in two.failed] == ["tests/test_calc.py::test_where"]
    assert one_root + "/calc/__init__.py" in one.failed[0][1] and two_root + "/calc/__init__.py" in two.failed[0][1]
    assert one_root not in repr(two) and two_root not in repr(one)
