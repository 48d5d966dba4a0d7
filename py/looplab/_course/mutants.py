"""How good are a lesson's checks? Its mutation score: mutants of each solution, run against the checks.

    python -m looplab._course.mutants                 every lesson, every mutant (make mutants)
    python -m looplab._course.mutants 04 25           some lessons
    python -m looplab._course.mutants --short         a fixed sample of each lesson's mutants (make test)
    python -m looplab._course.mutants 04 --survivors  and print each survivor

Each exercise's solution is changed in one small way at a time (`mutate.mutants`), and the lesson
runs with that mutant as the learner's code in the exercise (every other exercise solved, the
solution cells left as they are, so a check still reads the reference from them). A mutant is
killed when a check fails or a cell raises (or it runs past its time); it survives when every
check passes. A survivor is a mistake the checks let through, unless it really behaves as the
solution does: then it is marked equivalent, with a one-line reason, in the lesson's file in
`lessons/mutants/` beside the `floor`: the share of non-equivalent mutants that must be killed.
A full run raises a floor to the score it measured (floors only rise) and fails when a lesson
falls below its floor.

Each mutant runs in a child process forked just before its exercise's cell (the cells before it
run once), so a mutant that loops forever is stopped after its time and nothing it does reaches
the next one. CPython on a system with fork only; it is the authors' tool, not the page's.
"""

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import pickle
import re
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

try:
    import resource  # POSIX: each child gets a memory limit
except ImportError:  # Pyodide imports this module (its tests skip the runner)
    resource = None

from . import course, mutate, testcells
from .course import lesson_files, lesson_id
from .lesson import run_cells
from .lessonfile import Cell, parse, playing, solution_index

ROOT = Path(__file__).resolve().parents[3]
FLOOR_GOAL = 95.0  # every lesson: at least this share of its non-equivalent mutants killed
MEMORY = 3 << 30  # bytes a child may map: a mutant that grows a list forever fails here (killed)


def limit_memory() -> None:
    """In a child: cap its memory, so a runaway mutant ends with MemoryError, not the machine's OOM killer."""
    if resource is not None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@dataclass
class Outcome:
    """What one mutant did: killed (and by what), survived, or ran out of time."""

    mutant: mutate.Mutant
    exercise: int
    status: str  # "killed", "survived", "timeout"
    why: str = ""


@dataclass
class Marks:
    """A lesson's file in lessons/mutants/: its floor and its mutants marked equivalent, with why."""

    path: Path
    floor: float = 0.0
    equivalent: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, lesson: Path) -> "Marks":
        path = lesson.parent / "mutants" / (lesson.stem + ".json")
        if not path.exists():
            return cls(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(path, float(data.get("floor", 0)), dict(data.get("equivalent", {})))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"floor": self.floor, "equivalent": dict(sorted(self.equivalent.items()))}
        self.path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def exercises(cells: list[Cell]) -> list[int]:
    """The exercise cells that have a solution."""
    return [i for i, c in enumerate(cells) if c.role == "exercise" and solution_index(cells, i) is not None]


def names(cells: list[Cell], exercise: int) -> str:
    """What an exercise defines, to name it in a report."""
    try:
        found = testcells.defined_names(cells[solution_index(cells, exercise)].source)
    except SyntaxError:
        found = []
    return ", ".join(found) or f"cell {exercise + 1}"


def sample(found: list[mutate.Mutant], size: int | None) -> list[mutate.Mutant]:
    """A fixed sample of `size` mutants (all when None): the same one on every machine and run."""
    if size is None or len(found) <= size:
        return found
    ranked = sorted(found, key=lambda m: hashlib.sha256(m.key.encode()).hexdigest())
    keep = {m.key for m in ranked[:size]}
    return [m for m in found if m.key in keep]


def first_failure(result) -> str:
    if result.error:
        return "raised: " + result.error.strip().splitlines()[-1][:160]
    failed = next((c for c in result.checks if c.status == "failed"), None)
    return f"{failed.name}: {failed.message}"[:200] if failed else ""


def baseline(path: Path) -> tuple[float, str]:
    """How long the lesson takes with its solutions (seconds), and what fails in it ("" when nothing)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        limit_memory()
        started = time.monotonic()
        os.environ["LOOPLAB_MODEL"] = "scripted"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                result = run_cells(playing(parse(path.read_text(encoding="utf-8"))))
                problem = "" if result.ok else f"the solution itself fails: {first_failure(result)}"
            except BaseException as exc:  # noqa: BLE001
                problem = f"the solution's run raised {type(exc).__name__}: {exc}"
        with os.fdopen(write, "wb") as out:
            pickle.dump((time.monotonic() - started, problem), out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return pickle.loads(data) if data else (0.0, "the solution's run ended without a word")


def run_lesson(
    path: Path, size: int | None = None, timeout: float | None = None, only: set[int] | None = None
) -> tuple[list[Outcome], str]:
    """Every (or a sample of) mutant of every exercise of one lesson, each run in a forked child; and
    what went wrong with the solution itself ("" when it passes every check: else no kill counts).
    A mutant may run three times as long as the whole lesson takes (at least 10 s), then it is ended."""
    took, problem = baseline(path)
    if problem:
        return [], problem
    timeout = timeout or max(10.0, 3 * took)
    cells = playing(parse(path.read_text(encoding="utf-8")))
    todo = {
        e: sample(mutate.mutants(cells[solution_index(cells, e)].source), size)
        for e in exercises(cells)
        if only is None or e in only
    }
    outcomes: list[Outcome] = []
    child = {"pipe": None}

    def before(index: int) -> None:
        if child["pipe"] is not None or index not in todo:
            return
        for mutant in todo[index]:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: this mutant in place of the exercise, then the rest of the lesson
                os.close(read)
                limit_memory()
                child["pipe"] = write
                cells[index].source = mutant.source
                signal.alarm(int(timeout + 0.5))  # a mutant that never ends is ended (and counted killed)
                return
            os.close(write)
            outcomes.append(collect(read, pid, mutant, index, timeout))

    os.environ["LOOPLAB_MODEL"] = "scripted"
    stdout = sys.stdout
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            result = run_cells(cells, before_cell=before)
            report = ("survived" if result.ok else "killed", first_failure(result))
        except BaseException as exc:  # noqa: BLE001 — whatever a mutant does is an outcome
            report = ("killed", f"the run raised {type(exc).__name__}: {exc}")
        if child["pipe"] is not None:
            with os.fdopen(child["pipe"], "wb") as out:
                pickle.dump(report, out)
            sys.stdout = stdout
            os._exit(0)
    problem = "" if report[0] == "survived" else f"the solution itself fails: {report[1]}"
    return outcomes, problem


def apart(path: Path, size: int | None) -> tuple[list[Outcome], str]:
    """`run_lesson` in a child process of its own (a lesson may leave the process changed: its
    folder, its caches), with a word when it measured nothing it should have."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            found = run_lesson(path, size)
        except BaseException as exc:  # noqa: BLE001
            found = ([], f"{type(exc).__name__}: {exc}")
        with os.fdopen(write, "wb") as out:
            pickle.dump(found, out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    outcomes, problem = pickle.loads(data) if data else ([], "the lesson's process ended without a word")
    cells = playing(parse(path.read_text(encoding="utf-8")))
    reached = {o.exercise for o in outcomes}
    missed = [
        e for e in exercises(cells) if e not in reached and mutate.mutants(cells[solution_index(cells, e)].source)
    ]
    if not problem and missed:
        problem = f"the solution run never reached exercise cell {missed[0] + 1} (a cell before it raised?)"
    return outcomes, problem


def collect(read: int, pid: int, mutant: mutate.Mutant, exercise: int, timeout: float) -> Outcome:
    """Wait for a child and read what its mutant did."""
    chunks, deadline = [], time.monotonic() + timeout + 5
    with os.fdopen(read, "rb") as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if chunks:
        try:
            verdict, why = pickle.loads(b"".join(chunks))
            return Outcome(mutant, exercise, verdict, why)
        except Exception:  # noqa: BLE001
            pass
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGALRM, signal.SIGKILL):
        return Outcome(mutant, exercise, "timeout", f"ran past {timeout:.0f} s")
    return Outcome(mutant, exercise, "killed", f"the child ended with status {status}")


@dataclass
class Score:
    """One exercise's (or lesson's) counts."""

    made: int = 0
    killed: int = 0
    survived: int = 0
    equivalent: int = 0

    @property
    def percent(self) -> float:
        counted = self.killed + self.survived
        return 100.0 * self.killed / counted if counted else 100.0

    def add(self, other: "Score") -> None:
        self.made += other.made
        self.killed += other.killed
        self.survived += other.survived
        self.equivalent += other.equivalent


def score(outcomes: list[Outcome], marks: Marks) -> tuple[Score, list[Outcome]]:
    """The counts, and the survivors not marked equivalent."""
    s, left = Score(), []
    for o in outcomes:
        s.made += 1
        if o.status == "survived" and o.mutant.key in marks.equivalent:
            s.equivalent += 1
        elif o.status == "survived":
            s.survived += 1
            left.append(o)
        else:
            s.killed += 1
    return s, left


def depends_on(text: str, folder: Path, seen: set[str] | None = None) -> list[str]:
    """The texts of the lessons a lesson takes parts from with `mine(N)`, and of theirs, in order."""
    seen = seen if seen is not None else set()
    out = []
    for number in re.findall(r"\bmine\((\d+[a-z]?)\)", text):
        path = course.find_in(folder, number)
        if path is None or path.name in seen:
            continue
        seen.add(path.name)
        other = path.read_text(encoding="utf-8")
        out += [other, *depends_on(other, folder, seen)]
    return out


def cache_key(path: Path, size: int | None) -> str:
    """What a lesson's report depends on: the lesson, the lessons it takes parts from, its marks, the
    package's code (the checks' machinery and the library both), and the sample's size."""
    digest = hashlib.sha256(f"{size}\n".encode())
    text = path.read_text(encoding="utf-8")
    marks = Marks.of(path).path
    for part in [text, *depends_on(text, path.parent), marks.read_text(encoding="utf-8") if marks.exists() else ""]:
        digest.update(hashlib.sha256(part.encode()).digest())
    for source in sorted((ROOT / "py" / "looplab").rglob("*.py")):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:24]


def measure(path: Path, size: int | None, cache: Path | None = None) -> dict:
    """One lesson's report: per exercise the counts, each survivor not marked equivalent, any problem.
    With `cache`, a report made before from exactly the same inputs is read back instead."""
    stored = cache / f"{path.stem}-{cache_key(path, size)}.json" if cache else None
    if stored and stored.exists():
        return {**json.loads(stored.read_text(encoding="utf-8")), "cached": True}
    started = time.monotonic()
    outcomes, problem = apart(path, size)
    marks, cells = Marks.of(path), parse(path.read_text(encoding="utf-8"))
    report = {"exercises": {}, "survivors": [], "problem": problem, "cached": False}
    for e in exercises(cells):
        counts, left = score([o for o in outcomes if o.exercise == e], marks)
        report["exercises"][names(cells, e)] = {
            **counts.__dict__,
            "timeout": sum(o.status == "timeout" for o in outcomes if o.exercise == e),
        }
        report["survivors"] += [
            {"exercise": names(cells, e), "mutant": str(o.mutant), "key": o.mutant.key, "status": o.status}
            for o in left
        ]
    made = {o.mutant.key for o in outcomes}
    report["stale"] = sorted(k for k in marks.equivalent if size is None and k not in made)
    report["seconds"] = round(time.monotonic() - started, 1)
    if stored and not problem:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m looplab._course.mutants", description=__doc__.split("\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers (default: every lesson)")
    parser.add_argument("--folder", type=Path, default=ROOT / "lessons")
    parser.add_argument("--short", action="store_true", help="a fixed sample of each exercise's mutants")
    parser.add_argument("--size", type=int, default=5, help="mutants per exercise with --short")
    parser.add_argument("--cache", type=Path, help="keep each lesson's report here, by what it depends on")
    parser.add_argument("--survivors", action="store_true", help="print every survivor")
    parser.add_argument("--raise-floors", action="store_true", help="raise each floor to its score (a full run)")
    parser.add_argument("--json", type=Path, help="write the table as JSON here")
    args = parser.parse_args(argv)
    paths = [p for p in lesson_files(args.folder) if not args.lessons or lesson_id(p) in args.lessons]
    size = args.size if args.short else None
    failing, table = [], {}
    print(f"{'lesson / exercise':46} {'made':>5} {'killed':>7} {'survived':>9} {'equiv':>6} {'score':>7}")
    for path in paths:
        marks, report = Marks.of(path), measure(path, size, args.cache)
        if report["problem"]:
            print(f"{lesson_id(path):4} {path.stem[:41]:41} could not be measured: {report['problem']}")
            failing.append(f"{lesson_id(path)}: {report['problem']}")
            continue
        total = Score()
        for name, counts in report["exercises"].items():
            row = Score(**{k: v for k, v in counts.items() if k != "timeout"})
            total.add(row)
            print(
                f"  {name[:44]:44} {row.made:5} {row.killed:7} {row.survived:9} {row.equivalent:6} {row.percent:6.1f}%"
            )
        timeouts = sum(counts.get("timeout", 0) for counts in report["exercises"].values())
        note = "cached" if report["cached"] else f"{report['seconds']:.1f} s"
        note += f", {timeouts} ran out of time" if timeouts else ""
        print(
            f"{lesson_id(path):4} {path.stem[:41]:41} {total.made:5} {total.killed:7} {total.survived:9} "
            f"{total.equivalent:6} {total.percent:6.1f}%  floor {marks.floor:.1f}  ({note})"
        )
        table[lesson_id(path)] = {
            **total.__dict__,
            "percent": round(total.percent, 1),
            "exercises": report["exercises"],
        }
        below = total.percent < marks.floor
        if args.survivors or below:
            for left in report["survivors"]:
                print(f"      survived: {left['exercise']}: {left['mutant']}")
                print(f"        key: {left['key']}")
        for key in report.get("stale", []):
            print(f"      marked equivalent, but no longer a mutant of the solution: {key}")
        if below:
            failing.append(f"{lesson_id(path)}: {total.percent:.1f}% < its floor {marks.floor:.1f}%")
        elif args.raise_floors and size is None and total.percent > marks.floor:
            marks.floor = math.floor(total.percent * 10) / 10
            marks.save()
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    if failing:
        print("failed: " + "; ".join(failing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
