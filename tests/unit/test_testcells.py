"""A lesson's own tests (tests cells): pytest run in-process over functions of the lesson's namespace.

Runs in CPython and, with the rest of tests/unit, inside Pyodide: pytest inside pytest.
"""

import gc
import re
import textwrap

import pytest

from looplab._course import testcells
from looplab._course.lesson import FAILED, NOT_CHECKED, PASSED, Cell, check_names, parse, run_cells


def lesson_tests(source: str, namespace: dict | None = None) -> dict[str, tuple[str, str]]:
    """Run a tests cell's source as the runner does: {check name: (status, message)}."""
    ns = {"__name__": "__lesson__", **(namespace or {})}
    source = textwrap.dedent(source)
    exec(testcells.compile_tests(source, "<cell 1>"), ns)
    return {
        name: (status, message) for name, status, message in testcells.run_tests(ns, testcells.defined_names(source))
    }


def test_each_test_is_a_check_named_by_its_docstring_or_its_name():
    out = lesson_tests('''
        def test_adds():
            """adding works

            more words that are not the name"""
            assert 1 + 1 == 2

        def test_no_docstring():
            assert True

        def helper_not_a_test():
            raise RuntimeError("never run")
    ''')
    assert out == {"adding works": (PASSED, ""), "test_no_docstring": (PASSED, "")}


def test_a_failure_carries_pytests_assertion_explanation_short(capsys):
    out = lesson_tests("""
        def test_len():
            xs = [1, 2]
            assert len(xs) == 3, "the list is short"

        def test_dicts():
            assert {"a": 1, "b": 2} == {"a": 1, "b": 3}

        def test_raises():
            {}["missing"]
    """)
    status, message = out["test_len"]
    assert status == FAILED and message.startswith("the list is short") and "where 2 = len([1, 2])" in message
    status, message = out["test_dicts"]
    assert status == FAILED and "{'b': 2} != {'b': 3}" in message and "-v" not in message
    assert out["test_raises"] == (FAILED, "KeyError: 'missing'")
    assert re.search(r"^pytest ran 3 tests: 3 failed \(\d+\.\d\d s\)$", capsys.readouterr().out, re.M)
    long = lesson_tests("def test_long():\n    assert list(range(400)) == list(range(1, 401))\n")
    assert len(long["test_long"][1]) <= testcells.MESSAGE_CHARS + 2


def test_parametrize_fixtures_skip_and_xfail():
    out = lesson_tests('''
        import pytest

        @pytest.fixture
        def five():
            return 5

        def test_fixture(five):
            assert five == 5

        @pytest.mark.parametrize("n", [1, 3], ids=["one", "14°C"])
        def test_small(n):
            """small numbers"""
            assert n < 3

        def test_skipped():
            pytest.skip("the model answered 'x'; a scripted model answers 'y'")

        @pytest.mark.xfail(reason="known gap")
        def test_known():
            assert False
    ''')
    assert out["test_fixture"] == (PASSED, "")
    assert out["small numbers [one]"] == (PASSED, "")
    assert out["small numbers [14°C]"][0] == FAILED  # ids as written, not escaped
    assert out["test_skipped"] == (NOT_CHECKED, "the model answered 'x'; a scripted model answers 'y'")
    assert out["test_known"] == (NOT_CHECKED, "expected to fail: known gap")


def test_the_tests_see_the_lesson_namespace():
    out = lesson_tests(
        """
        def test_uses_the_lesson():
            assert double(TOTAL) == 10
    """,
        {"TOTAL": 5, "double": lambda x: x * 2},
    )
    assert out == {"test_uses_the_lesson": (PASSED, "")}
    wrong = lesson_tests(
        "def test_uses_the_lesson():\n    assert double(TOTAL) == 10\n", {"TOTAL": 4, "double": lambda x: x * 2}
    )
    assert wrong["test_uses_the_lesson"][0] == FAILED and "8 == 10" in wrong["test_uses_the_lesson"][1]


def test_setup_errors_collection_errors_and_no_tests_are_failures():
    out = lesson_tests("""
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("no database")

        def test_needs_it(broken):
            pass

        def test_fine():
            pass
    """)
    assert out == {"test_needs_it": (FAILED, "in setup: RuntimeError: no database"), "test_fine": (PASSED, "")}
    # a test pytest cannot even collect fails the collection (the cell's other tests do not run)
    bad = lesson_tests("""
        import pytest

        @pytest.mark.parametrize("n", [1])
        def test_bad_parametrize(m):
            pass
    """)
    status, message = bad["collecting the lesson's tests"]
    assert list(bad) == ["collecting the lesson's tests"] and status == FAILED and "'n'" in message
    assert lesson_tests("X = 1\n") == {
        "the lesson's tests": (FAILED, "pytest found no tests: a test is a function whose name starts with test_")
    }


def test_expect_inside_a_test_skips_it_with_a_live_model(monkeypatch):
    source = '''
        from looplab import expect

        def test_claim():
            """the answer is Chris"""
            expect(ANSWER == "Chris", "the answer was wrong", observed=f"the model answered {ANSWER!r}")
    '''
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    assert lesson_tests(source, {"ANSWER": "Chris"}) == {"the answer is Chris": (PASSED, "")}
    assert lesson_tests(source, {"ANSWER": "Alex"}) == {"the answer is Chris": (FAILED, "the answer was wrong")}
    monkeypatch.setenv("LOOPLAB_MODEL", "live")
    assert lesson_tests(source, {"ANSWER": "Alex"}) == {
        "the answer is Chris": (NOT_CHECKED, "the model answered 'Alex'")
    }
    assert testcells.RUNNING is False


def test_stop_during_the_tests_is_not_swallowed():
    with pytest.raises(KeyboardInterrupt):
        lesson_tests("def test_stop():\n    raise KeyboardInterrupt\n")
    assert testcells.RUNNING is False


def collections_during(run) -> list[int]:
    """The generations of the garbage collections made while `run()` runs, the automatic ones off:
    each is one that code asked for (gc.collect())."""
    generations = []

    def heard(phase, info):
        if phase == "start":
            generations.append(info["generation"])

    was_on = gc.isenabled()
    gc.disable()
    gc.callbacks.append(heard)
    try:
        run()
    finally:
        gc.callbacks.remove(heard)
        if was_on:
            gc.enable()
    return generations


def test_pytest_ends_a_session_a_stopped_one_too_without_collecting_the_whole_heap():
    """pytest's unraisableexception plugin ended each session with a full gc.collect(): 0.1 s of the
    0.11 s pytest took to end after Stop, and past Stop's deadline in a busy page (issue 37)."""
    assert collections_during(lambda: lesson_tests("def test_fine():\n    assert True\n")) == []

    def stopped():
        with pytest.raises(KeyboardInterrupt):
            lesson_tests("def test_stop():\n    raise KeyboardInterrupt\n")

    assert collections_during(stopped) == []
    assert lesson_tests("def test_fine():\n    assert True\n") == {"test_fine": (PASSED, "")}  # pytest still runs


LESSON = '''# %% [markdown]
# # A lesson with tests

# %%
def double(x):
    return x * 2

# %% tags=["exercise", "tests"]
def test_double():
    """double doubles"""
    assert double(2) == 5

# %% tags=["solution", "tests"]
def test_double():
    """double doubles"""
    assert double(2) == 4

# %% tags=["check"]
# double exists
assert callable(double)
'''


def test_run_cells_runs_the_tests_after_the_checks_and_names_them_ahead():
    cells = parse(LESSON)
    assert check_names(cells) == ["double exists", "double doubles"]
    solved = run_cells(cells, solution=True)
    assert [(c.name, c.status) for c in solved.checks] == [("double exists", PASSED), ("double doubles", PASSED)]
    assert solved.ok
    starter = run_cells(cells)
    assert [(c.name, c.status) for c in starter.checks] == [("double exists", PASSED), ("double doubles", FAILED)]
    assert "assert 4 == 5" in starter.checks[1].message and not starter.ok


def test_a_tests_cell_that_raises_stops_the_lesson_like_any_cell():
    cells = parse(LESSON) + [Cell("code", "raise ValueError('broken')", ["tests"])]
    result = run_cells(cells, solution=True)
    assert result.error and "ValueError: broken" in result.error
    assert all(c.status == FAILED and "raised ValueError" in c.message for c in result.checks)


def test_run_here_runs_a_lesson_files_tests_and_exits_1_on_a_failure(tmp_path, capsys):
    path = tmp_path / "01-x.py"
    path.write_text(LESSON)
    namespace = {"__file__": str(path), "__name__": "__main__", "double": lambda x: x * 2}
    testcells.run_here(namespace)
    assert "✓ double doubles" in capsys.readouterr().out
    namespace["double"] = lambda x: x * 3
    with pytest.raises(SystemExit) as stopped:
        testcells.run_here(namespace)
    printed = capsys.readouterr().out
    assert stopped.value.code == 1 and "✗ double doubles" in printed and "assert 6 == 4" in printed


def test_without_pytest_the_cell_still_compiles_and_the_reason_is_said(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pytest(name, *args, **kwargs):
        if name == "pytest" or name.startswith("_pytest"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pytest)
    ns = {}
    exec(testcells.compile_tests("def test_x():\n    assert 1 == 2\n", "<cell 1>"), ns)
    with pytest.raises(AssertionError):
        ns["test_x"]()
    assert testcells.run_tests(ns, ["test_x"]) == [("the lesson's tests", FAILED, testcells.NO_PYTEST)]
    assert "pip install pytest" in testcells.NO_PYTEST
