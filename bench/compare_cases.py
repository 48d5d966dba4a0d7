"""Cases for a differential check: looplab's seeded generator against hypothesis, in CPython and in the page.

Prints figures; asserts nothing. Run: `make bench-cases`, or `python bench/compare_cases.py [--runs 3]`
(needs the "site" and "test" wheels: `make wheels-site wheels-test`).

The same check runs both ways: clear_old_results (lesson 8) against its reference on 100 histories
(a list of roles and a `keep`), once with `looplab.generate` + `compare`, once with hypothesis's
`@given` (derandomized, no database, 100 examples). Each is a lesson of its own in a site built into a
temporary folder; every run uses a fresh Chromium profile, so the page has loaded nothing beforehand:

  import    the lesson's own import of what it uses (hypothesis: `import hypothesis`; ours: the
            looplab names, already in the worker)
  install   the worker's loadPackage of the wheels the lesson's imports need, as the page's status
            keeps it (hypothesis and sortedcontainers, fetched from the site and unpacked)
  check     generating the 100 cases and comparing both functions on each
  done      the page's own Run-to-result time for the whole lesson

In CPython the same two checks run in a fresh interpreter each, looplab imported first (a lesson has it
already), so "import" is what the check itself adds, cold.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

from learner import open_lesson, wait_run_end

from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, build_site_of

COMMON = """
def reference(roles, keep):
    results = [i for i, r in enumerate(roles) if r == "tool"]
    old = set(results[:-keep] if keep else results)
    return ["[cleared]" if i in old else r for i, r in enumerate(roles)]

def yours(roles, keep):
    results = [i for i, r in enumerate(roles) if r == "tool"]
    old = set(results[:-keep] if keep else results)
    return ["[cleared]" if i in old else r for i, r in enumerate(roles)]
"""

OURS = (
    """import json, time
import looplab  # a lesson has it already: only what the check adds is timed
started = time.perf_counter()
from looplab import Case, compare, generate
imported = time.perf_counter()
"""
    + COMMON
    + """
def history(d):
    roles = d.some(lambda d: d.pick(["user", "assistant", "tool"]), 0, 8)
    return Case((roles, d.number(0, 9)))

found = compare(yours, reference, generate(history, count=100))
checked = time.perf_counter()
print("BENCH " + json.dumps({"import": (imported - started) * 1000, "check": (checked - imported) * 1000,
                             "cases": found.tried, "same": bool(found)}))
"""
)

HYPOTHESIS = (
    """import json, time
import looplab  # a lesson has it already: only what the check adds is timed
started = time.perf_counter()
import hypothesis
from hypothesis import given, settings, strategies as st
imported = time.perf_counter()
"""
    + COMMON
    + """
tried = []

@settings(max_examples=100, database=None, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(["user", "assistant", "tool"]), max_size=8), st.integers(0, 9))
def agrees(roles, keep):
    tried.append(1)
    assert yours(roles, keep) == reference(roles, keep)

agrees()
checked = time.perf_counter()
print("BENCH " + json.dumps({"import": (imported - started) * 1000, "check": (checked - imported) * 1000,
                             "cases": len(tried), "same": True}))
"""
)

LESSONS = {"97-bench-ours": OURS, "98-bench-hypothesis": HYPOTHESIS}


def as_lesson(code: str, title: str) -> str:
    return f"# %% [markdown]\n# # Bench: {title}\n\n# %%\n{code}"


def figures(text: str) -> dict:
    lines = [line for line in text.splitlines() if line.startswith("BENCH ")]
    if not lines:
        raise RuntimeError(f"no figures printed:\n{text[-2000:]}")
    return json.loads(lines[-1][len("BENCH ") :])


def in_cpython(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "py"), "LOOPLAB_MODEL": "scripted", "PATH": ""},
        check=True,
    )
    return figures(done.stdout)


def in_the_page(page, url: str, slug: str) -> dict:
    open_lesson(page, url, slug)
    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=180_000)
    out = figures(page.get_by_test_id("output").inner_text())
    out.update(
        page.evaluate("""() => { const s = document.querySelector('[data-testid=status]').dataset;
        return {done: Number(s.runEnded) - Number(s.runStarted), install: s.extrasMs ? Number(s.extrasMs) : 0}; }""")
    )
    return out


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    wheels = {e["name"]: e for e in json.loads((ROOT / "wheels.lock.json").read_text())["groups"]["test"]}
    size = sum(
        (ROOT / ".cache" / "wheels" / wheels[n]["filename"]).stat().st_size for n in ("hypothesis", "sortedcontainers")
    )

    cpython = {slug: [in_cpython(code) for _ in range(args.runs)] for slug, code in LESSONS.items()}
    page: dict[str, list[dict]] = {slug: [] for slug in LESSONS}
    with tempfile.TemporaryDirectory() as tmp:
        lessons = Path(tmp) / "lessons"
        lessons.mkdir()
        for slug, code in LESSONS.items():
            (lessons / f"{slug}.py").write_text(as_lesson(code, slug))
        site = build_site_of(lessons, Path(tmp) / "dist")
        server = SiteServer(site)
        try:
            with sync_playwright() as p:
                for i in range(args.runs):
                    for slug in LESSONS:
                        context = p.chromium.launch_persistent_context(
                            f"{tmp}/profile-{slug}-{i}", executable_path=CHROMIUM, args=CHROMIUM_ARGS
                        )
                        try:
                            page[slug].append(in_the_page(context.new_page(), server.url, slug))
                        finally:
                            context.close()
                    print(f"  run {i + 1}/{args.runs} done", flush=True)
        finally:
            server.stop()

    print(f"\ncompare_cases: medians of {args.runs} runs; 100 cases of clear_old_results against its reference")
    print(f"  hypothesis's wheels for the page: {size / 1024:.0f} KiB (hypothesis + sortedcontainers)")
    for label, slug in (("looplab.generate", "97-bench-ours"), ("hypothesis      ", "98-bench-hypothesis")):
        c, w = cpython[slug], page[slug]
        print(
            f"  {label}  CPython: import {median(c, 'import'):6.1f} ms  check {median(c, 'check'):6.1f} ms   "
            f"page: install {median(w, 'install'):6.0f} ms  import {median(w, 'import'):6.0f} ms  "
            f"check {median(w, 'check'):6.0f} ms  click -> done {median(w, 'done'):6.0f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
