"""One lesson run live through the command line, and what it shows: checks by mark, runs and their stops, figures.

Shared by tests/real/test_curriculum.py (which asserts) and bench/real_server.py (which prints).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from looplab._course.course import lesson_files

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lesson_files(ROOT / "lessons")
STOPS = {"final", "step_limit", "error", "needs_person", "blocked"}
KEY = "sk-llama-real-test-key-5ec4e7f0a1b2"  # a fake key; the server is told to require it
FIGURES: list[dict] = []  # one row per lesson run by the tests, printed at the end of the session


def run_lesson(path: Path, base_url: str, key: str, model: str, timeout: float = 900, **env) -> dict:
    """`python -m looplab run <lesson> --solution --live --trace` against base_url (replies streamed); its output and time."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    environment.update(
        PYTHONPATH=str(ROOT / "py"),
        PYTHONIOENCODING="utf-8",
        LLM_BASE_URL=base_url,
        LLM_API_KEY=key,
        LLM_MODEL=model,
        LLM_TIMEOUT="180",
        **{"LLM_STREAM": "1", **env},
    )
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "looplab", "run", str(path), "--solution", "--live", "--trace"],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        exit_code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as late:  # a row that says so, rather than no row
        exit_code, stdout, stderr = f"timeout {timeout:g} s", late.stdout or "", late.stderr or ""
        stdout, stderr = [t.decode(errors="replace") if isinstance(t, bytes) else t for t in (stdout, stderr)]
    return {
        "lesson": path.stem,
        "seconds": round(time.perf_counter() - started, 1),
        "exit": exit_code,
        "stdout": stdout,
        "stderr": stderr,
    }


def checks(stdout: str) -> dict[str, list[str]]:
    """The checklist the CLI printed, by mark: ✓ passed, ✗ failed, any other mark not checked."""
    out = {"passed": [], "failed": [], "not checked": []}
    listing = stdout.split("\nChecks:\n", 1)[1] if "\nChecks:\n" in stdout else ""
    for line in listing.splitlines():
        found = re.match(r"^  (\S+) (.+)$", line)  # a check's line; its message lines are indented further
        if not found:
            continue
        mark, name = found.groups()
        out["passed" if mark == "✓" else "failed" if mark == "✗" else "not checked"].append(name)
    return out


def silent_unchecked(stdout: str) -> list[str]:
    """The not-checked checks printed without a line under them saying what the model did."""
    listing = stdout.split("\nChecks:\n", 1)[1] if "\nChecks:\n" in stdout else ""
    lines, silent = listing.splitlines(), []
    for i, line in enumerate(lines):
        found = re.match(r"^  (\S+) (.+)$", line)
        if found and found.group(1) not in ("✓", "✗"):
            if not (i + 1 < len(lines) and lines[i + 1].startswith("      ") and lines[i + 1].strip()):
                silent.append(found.group(2))
    return silent


def stops(stdout: str) -> tuple[int, list[str]]:
    """How many runs started, and each run's stop reason, from the --trace lines."""
    started = len(re.findall(r"^\s*· run_start ", stdout, re.M))
    return started, re.findall(r"^\s*· stop (\S+) after ", stdout, re.M)


def figures(run: dict, replies: list[dict]) -> dict:
    """A lesson's row: time, checks by outcome, replies, the longest in tokens, how many the limit cut."""
    marks = checks(run["stdout"])
    tokens = [r["tokens"] for r in replies if isinstance(r.get("tokens"), int)]
    return {
        "lesson": run["lesson"],
        "seconds": run["seconds"],
        "passed": len(marks["passed"]),
        "not_checked": len(marks["not checked"]),
        "failed": len(marks["failed"]),
        "replies": len(replies),
        "longest_tokens": max(tokens, default=0),
        "longest_chars": max((r["chars"] for r in replies), default=0),
        "cut": sum(r.get("finish") == "length" for r in replies),
        "exit": run["exit"],
    }


def table(rows: list[dict]) -> str:
    """The figures as a plain-text table, with a total line."""
    head = f"{'lesson':<32} {'live s':>7} {'passed':>6} {'not chk':>7} {'failed':>6} {'replies':>7} {'longest tok':>11} {'chars':>6} {'cut':>4}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['lesson']:<32} {r['seconds']:>7.1f} {r['passed']:>6} {r['not_checked']:>7} {r['failed']:>6} "
            f"{r['replies']:>7} {r['longest_tokens']:>11} {r['longest_chars']:>6} {r['cut']:>4}"
        )
    lines.append("-" * len(head))
    lines.append(
        f"{'total':<32} {sum(r['seconds'] for r in rows):>7.1f} {sum(r['passed'] for r in rows):>6} "
        f"{sum(r['not_checked'] for r in rows):>7} {sum(r['failed'] for r in rows):>6} "
        f"{sum(r['replies'] for r in rows):>7} {max((r['longest_tokens'] for r in rows), default=0):>11} "
        f"{max((r['longest_chars'] for r in rows), default=0):>6} {sum(r['cut'] for r in rows):>4}"
    )
    return "\n".join(lines)
