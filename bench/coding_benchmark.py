"""Lesson 26's coding benchmark live against llama-server with SmolLM2-135M — scores printed, nothing asserted.

    python bench/coding_benchmark.py            # make bench-coding

The lesson runs as `make test-real` runs every lesson (tests/real/curriculum.py): its solution
through `python -m looplab run 26 --solution --live --trace`, replies streamed, greedy, behind
the recording pass-through of tests/llamaserver.py. Printed: the lesson's own scoreboard (nine
tasks, k = 2: pass@1, pass^2, mean steps, tokens and cost per trial), each failed trial's
reason, what the two "not checked" lines measured, and from the recording how many replies the
model wrote, how many held a tool call, and how many the token limit cut. The scores measure the
model, not the code: they are reported (the lesson's closing note quotes them), never asserted.
"""

import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "tests"), str(ROOT / "tests" / "real")]

from curriculum import KEY, LESSONS, checks, run_lesson
from llamaserver import MODEL_NAME, LlamaServer, Recorder

LESSON = next(p for p in LESSONS if p.name.startswith("26-"))
HEADER = "task        pass@1  pass^2"


def scoreboard(stdout: str) -> list[str]:
    """The lesson's printed board and its failure lines, without the trace lines between them."""
    lines = stdout.split("\n" + HEADER, 1)
    if len(lines) < 2:
        return []
    board = [HEADER]
    for line in lines[1].splitlines()[1:]:
        if line.startswith("Checks:"):
            break
        if line.strip() and not line.lstrip().startswith("·"):
            board.append(line)
    return board


def main() -> int:
    with LlamaServer(key=KEY) as server, Recorder(server) as proxy:
        run = run_lesson(LESSON, proxy.url, KEY, MODEL_NAME)
        replies = proxy.take()
    marks = checks(run["stdout"])
    print(
        f"lesson {LESSON.stem} live against llama-server ({MODEL_NAME}, greedy, streamed): "
        f"{run['seconds']:.1f} s, exit {run['exit']}"
    )
    board = scoreboard(run["stdout"])
    if not board:
        print("the lesson printed no scoreboard; its output ends:\n" + run["stdout"][-3000:] + run["stderr"][-2000:])
        return 1
    print("\n".join(board))
    listing = run["stdout"].split("\nChecks:\n", 1)[-1].splitlines()
    measured = [
        line.strip()
        for i, line in enumerate(listing)
        if i and listing[i - 1].lstrip().startswith("–") and line.startswith("      ")
    ]
    for line in measured:
        print(f"  not checked, measured: {line}")
    trials = Counter(re.findall(r"\(stopped (\S+) after", "\n".join(board)))
    print(
        f"checks: {len(marks['passed'])} passed, {len(marks['not checked'])} not checked, "
        f"{len(marks['failed'])} failed; the failed trials stopped: {dict(trials) or 'none failed'}"
    )
    print(
        f"replies: {len(replies)}, with a tool call {sum(r['tool_calls'] > 0 for r in replies)}, "
        f"cut by the limit {sum(r['finish'] == 'length' for r in replies)}, "
        f"longest {max((r['tokens'] or 0 for r in replies), default=0)} tokens"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
