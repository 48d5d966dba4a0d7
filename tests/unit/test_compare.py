"""Checks that compare the learner's part with the lesson's reference: cases, compare, reference, the bank.

These run in CPython and again inside Pyodide (tests/pyodide), as the page runs them.
"""

import contextlib
import io

import pytest

from looplab import Case, Said, compare, generate, reference, scenarios
from looplab._course.cases import Draw
from looplab._course.compare import first_difference, returns
from looplab._course.lesson import parse, run_cells


def clear(history, keep=1):
    """The reference: every tool result but the newest `keep` cleared."""
    results = [i for i, m in enumerate(history) if m["role"] == "tool"]
    old = set(results[:-keep] if keep else results)
    return [{**m, "content": "[cleared]"} if i in old else m for i, m in enumerate(history)]


def clear_keeping_one_too_many(history, keep=1):
    results = [i for i, m in enumerate(history) if m["role"] == "tool"]
    old = set(results[: -keep - 1] if keep else results[:-1])
    return [{**m, "content": "[cleared]"} if i in old else m for i, m in enumerate(history)]


def tool_results(n):
    return [{"role": "tool", "tool_call_id": f"c{i}", "content": f"r{i}"} for i in range(n)]


def cleared(fn, history, keep):
    out = fn(history, keep)
    return {"tool results cleared": sum(m["content"] == "[cleared]" for m in out)}


def test_generate_gives_the_edges_first_then_the_made_cases_smallest_first_the_same_every_time():
    def make(d):
        return Case((d.some(lambda d: d.number(0, 9), 0, 6),))

    edges = [Case(([5, 5, 5],), "three fives")]
    once, again = generate(make, count=40, seed=7, edges=edges), generate(make, count=40, seed=7, edges=edges)
    other = generate(make, count=40, seed=8, edges=edges)
    assert [c.arguments for c in once] == [c.arguments for c in again] != [c.arguments for c in other]
    assert once[0].words == "three fives" and once[1].arguments == ([],)
    sizes = [len(repr(c.arguments)) for c in once[1:]]
    assert sizes == sorted(sizes) and len({repr(c.arguments) for c in once}) == len(once)  # no repeats


def test_a_case_without_words_is_named_by_its_arguments_cut_short():
    assert Case((0, "x" * 100)).words.startswith("0, 'xxxx") and len(Case(("x" * 100,)).words) <= 60
    assert Case(()).words == "no arguments"


def test_draw_is_seeded_and_covers_its_range():
    first, second = Draw(3), Draw(3)
    picks = [first.number(0, 2) for _ in range(60)]
    assert picks == [second.number(0, 2) for _ in range(60)] and set(picks) == {0, 1, 2}
    assert Draw(1).subset([]) == [] and sorted(Draw(1).shuffled([3, 1, 2])) == [1, 2, 3]


def test_compare_agrees_on_every_case_and_says_how_many_it_tried():
    cases = [Case((tool_results(n), keep)) for n in range(4) for keep in range(3)]
    found = compare(clear, clear, cases)
    assert found and found.tried == 12 and str(found) == "yours agrees with the lesson's solution on all 12 cases"


def test_compare_names_the_first_differing_case_and_what_differs_in_plain_words():
    cases = [
        Case((tool_results(0), 0), "keep=0 and no tool results"),
        Case((tool_results(3), 0), "keep=0 and 3 tool results"),
        Case((tool_results(3), 1), "keep=1 and 3 tool results"),
    ]
    found = compare(clear_keeping_one_too_many, clear, cases, observe=cleared)
    assert not found and found.tried == 2 and found.case is cases[1]
    assert str(found) == "With keep=0 and 3 tool results: tool results cleared: yours 2; it should be 3"


def test_the_plain_observation_looks_at_what_came_back_and_whether_the_arguments_changed():
    def sorts_in_place(items):
        items.sort()
        return items

    found = compare(sorts_in_place, sorted, [Case(([2, 1],), "the list [2, 1]")])
    assert not found and found.what == "its arguments afterwards"
    assert str(found) == "With the list [2, 1]: its arguments afterwards: yours changed; it should be unchanged"
    assert returns(len, [1, 2]) == {"returned": 2, "its arguments afterwards": Said("unchanged")}


def test_a_side_that_raises_is_named_with_its_exception_and_a_raising_reference_is_a_course_bug():
    def breaks(history, keep):
        raise KeyError("role")

    one = [Case((tool_results(1), 1), "one tool result")]
    found = compare(breaks, clear, one, observe=cleared)
    assert (
        not found
        and str(found) == "With one tool result, yours raised KeyError: 'role'; the lesson's solution does not raise"
    )
    with pytest.raises(RuntimeError, match="the lesson's solution raised on the case one tool result"):
        compare(clear, breaks, one, observe=cleared)
    assert compare(breaks, breaks, one, observe=cleared)  # the same kind of exception on both sides agrees
    plain = compare(breaks, clear, one)  # the plain observation reads an exception as what came back
    assert str(plain).startswith("With one tool result: returned: yours raised KeyError: 'role'; it should be [")


def test_each_side_gets_its_own_copy_of_the_case():
    def spoils(items):
        items.append("spoiled")
        return len(items)

    case = Case((["a"],))
    found = compare(spoils, spoils, [case])
    assert found and case.arguments == (["a"],)


def test_first_difference_walks_into_dicts_and_lists_of_records_but_shows_short_lists_whole():
    assert first_difference({"a": [{"b": 1}]}, {"a": [{"b": 2}]}) == (" → a → item 1 → b", 1, 2)
    assert first_difference([1, 2, 3], [1, 2]) == ("", [1, 2, 3], [1, 2])
    path, mine, theirs = first_difference([{"x": 1}], [{"x": 1}, {"x": 2}])
    assert path == " → how many" and (mine.text, theirs.text) == ("1 item", "2 items")
    assert first_difference({"a": 1}, {"a": 1}) is None and first_difference({}, {"k": 1})[0] == " → k"


def test_said_compares_by_its_key_and_shows_its_text():
    assert Said("raised ValueError: x", "raised") == Said("raised ValueError: y", "raised")
    assert Said("a") != Said("b") and Said("a", 1) != Said("a", 2) and Said("a") != "a"


LESSON = """# %% [markdown]
# # A tiny lesson

# %%
box = []  # the lesson's own object: reading the reference must not touch it

# %% tags=["exercise"]
def double(x):
    return x + x if x < 3 else x

# %% tags=["solution"]
box.append("the solution ran")
made = []
made.append("the solution's own list")

def double(x):
    return 2 * x

# %% tags=["check"]
from looplab import Case, compare, reference
found = compare(double, reference("double"), [Case((n,), f"x={n}") for n in range(6)])
# double agrees with the lesson's
assert found, found
# given: reading the reference ran the solution's definitions, and calls on what it made itself, only
assert len(box) <= 1 and reference("made") == ["the solution's own list"], (box, reference("made"))
"""


def test_reference_reads_the_solution_cells_and_runs_nothing_else_of_them():
    cells = parse(LESSON)
    with contextlib.redirect_stdout(io.StringIO()):
        starter, solved = run_cells(cells), run_cells(cells, solution=True)
    checks = {c.name: c for c in starter.checks}
    assert not checks["double agrees with the lesson's"].ok
    assert checks["double agrees with the lesson's"].message == "With x=3: returned: yours 3; it should be 6"
    assert checks["reading the reference ran the solution's definitions, and calls on what it made itself, only"].ok
    assert solved.ok and len(solved.checks) == 2


def test_reference_outside_a_lesson_run_says_so():
    with pytest.raises(LookupError, match="reference\\(\\) reads a lesson's solution"):
        reference("double")


def test_reference_of_a_name_no_solution_defines_is_refused_by_name():
    text = LESSON.replace('reference("double")', 'reference("triple")')
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_cells(parse(text))
    assert "this lesson's solution cells define no 'triple'" in result.checks[0].message


def test_the_bank_leaves_out_what_a_bench_cannot_play_and_scripts_replay_from_the_start():
    small = scenarios.bank(scenarios.Bench(read=("read_note", {"note_id": "n1"})))
    full = scenarios.bank(scenarios.Bench(read=("a", {}), other=("b", {}), guarded=("c", {})))
    assert len(full) == len(scenarios.SCENARIOS) > len(small) > 10
    assert all(not c.arguments[0].scenario.needs for c in small)
    script = next(c.arguments[0] for c in full if c.words == "two calls in one reply")
    model = script.model()
    reply = model([{"role": "user", "content": "go"}], [{"type": "function", "function": {"name": "a"}}])
    assert [c["id"] for c in reply["tool_calls"]] == ["call_1", "call_2"] and script.offered == [["a"]]
    assert (
        model(
            [{"role": "user", "content": "go"}, {"role": "tool", "tool_call_id": "call_1", "content": "error: x"}], []
        )["content"]
        == "Done."
    )
    assert scenarios.sent(script)[1] == [("user", "go"), ("tool", "call_1", "error")]
    assert script.model() and script.sent == []  # a fresh model starts the script again


def test_the_bank_fails_and_cuts_as_its_scenarios_say_and_approves_by_name_only_the_guarded_tool():
    bench = scenarios.Bench(read=("a", {}), other=("b", {}), guarded=("c", {}))
    by_name = {c.words: c.arguments[0] for c in scenarios.bank(bench)}
    with pytest.raises(ConnectionError, match="network down"):
        by_name["a model that fails at once"].model()([], [])
    cut = by_name["a stream cut short after a call"].model()
    cut([], [])
    with pytest.raises(Exception, match="cut short"):
        cut([], [])
    approving = by_name["an approval that looks at the tool's name"]
    assert approving.approve("c") and not approving.approve("a") and approving.settings["approve"]("c", "{}")
    assert by_name["the steps spent exactly"].settings == {"max_steps": 2}
    assert by_name["a reply with content None and no calls"].model()([], []).get("tool_calls")


def test_recorded_keeps_the_runs_and_passes_everything_else_on():
    from looplab import Toolbox

    box = Toolbox()
    box.register("ping", "Answer pong.", None, lambda: "pong")
    recorded = scenarios.Recorded(box)
    assert recorded.run("ping", "{}") == "pong" and recorded.ran == [("ping", "{}")]
    assert "ping" in recorded and recorded.schemas() == box.schemas() and recorded.names() == ["ping"]
