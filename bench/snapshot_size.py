"""Which memory snapshot the site should ship: today's, one with the lazy extras in it, a second one
with them, or a smaller one. Builds each variant into a temporary folder and measures them side by
side in headless Chromium, alternating fresh profiles in one run.

Prints figures and the decision rule's inputs; asserts nothing. Run: `make bench-snapshot`, or
`python bench/snapshot_size.py [--runs 3]`.

Variants (scripts/build_site.py):
  today     the default: looplab and every lesson's imports imported; pytest and openai lazy
  +pytest   --snapshot-with pytest: pytest and its dependencies loaded and imported in it
  +openai   --snapshot-with pytest,openai: refused by the build (pydantic-core and jiter are compiled
            code, which a snapshot cannot hold); printed with the build's reason
  second    a second snapshot with the extras, restored in a new worker when a lesson needs them:
            not built; estimated from the figures (the +pytest variant's cold Run-enabled time for
            the switch, plus its first pytest run; its snapshot's bytes on top of today's)
  minimal   --snapshot-minimal: only what the worker's bridge imports

For each, per run, three fresh profiles: lesson 01 cold then warm (Run enabled, bytes before the
first run, click Run -> checks); lesson 17 cold, Run -> checks (it imports pytest); lesson 14
cold, Run -> checks (it imports openai).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_until
from learner import KEPT_SNAPSHOTS, put_solutions, wait_code_warmed
from pagevisits import Requests
from startup import LONG_TASKS, load_note, median, visit_looplab

VARIANTS = {
    "today": [],
    "+pytest": ["--snapshot-with", "pytest"],
    "+openai": ["--snapshot-with", "pytest,openai"],
    "minimal": ["--snapshot-minimal"],
}
FIRST = "01-agent-or-workflow"
PYTEST_LESSON = "17-evaluate-your-agent"  # grep -ln "import pytest" lessons/
OPENAI_LESSON = "14-real-models"  # grep -ln "import openai" lessons/
ENABLED = "() => document.querySelector('[data-testid=run]').getAttribute('aria-disabled') === 'false'"
ENDED = "() => document.querySelector('[data-testid=status]').dataset.runEnded !== undefined"


def build(name: str, options: list[str], out: Path) -> dict:
    """One variant built into `out`: its snapshot's facts, or {"error": why the build refused it}."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_site.py"), "--out", str(out), *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1].removeprefix("build_site: error: ")}
    facts = json.loads((out / "build.json").read_text())["snapshot"]
    print(f"  built {name}: {facts['bytes'] / 1e6:.2f} MB gz, {facts['rawBytes'] / 2**20:.1f} MiB", flush=True)
    return facts


def first_run(context, url: str, lesson: str, solutions: bool = True) -> dict:
    """A cold visit to `lesson`: Run enabled, the bytes of every request made before it (each waited
    for: a worker's big response can be reported finished after Python is ready), then its
    solutions run -> checks shown (ms), and whether the run loaded packages ("(loading ...)")."""
    page = context.new_page()
    requests = Requests(page)
    page.goto(f"{url}#/{lesson}")
    wait_until(page, ENABLED, 120_000)
    ready = float(page.evaluate("() => document.querySelector('[data-testid=status]').dataset.readyAt"))
    transferred = requests.bytes()
    if solutions:
        put_solutions(page)
    page.get_by_test_id("run").click()
    wait_until(page, ENDED, 180_000)
    figures = page.evaluate(r"""() => { const s = document.querySelector('[data-testid=status]').dataset;
        const checks = [...document.querySelectorAll('[data-testid=checks] li.check')];
        return { run: Number(s.runEnded) - Number(s.runStarted),
                 checks: `${checks.filter((li) => li.dataset.ok === 'true').length} of ${checks.length} passed`,
                 loaded: document.querySelector('[data-testid=output]').innerText.includes('(loading '),
                 loadS: Number((document.querySelector('[data-testid=output]').innerText
                                .match(/\(loaded in ([\d.]+) s\)/) || [0, 0])[1]) }; }""")
    return {
        "page": page,
        "ready": ready,
        "bytes": transferred,
        **figures,
    }


def kept_for_next_visit(page) -> None:
    """Wait until the service worker controls the page, the inflated snapshot is kept and Pyodide's
    code warmed (as bench/startup.py's cold visit does), so the warm visit is a warm one."""
    wait_until(page, "() => !!navigator.serviceWorker.controller", 60_000)
    wait_until(page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length > 0)", 60_000)
    wait_code_warmed(page)


def measure(p, tmp: str, name: str, url: str, i: int) -> dict:
    def profile(kind: str):
        context = p.chromium.launch_persistent_context(
            f"{tmp}/{name}-{kind}-{i}",
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 800},
        )
        context.add_init_script(LONG_TASKS)
        return context

    row = {}
    context = profile("first")
    try:
        cold = first_run(context, url, FIRST, solutions=False)  # its scripted Run ends with its checks as written
        page = cold.pop("page")
        kept_for_next_visit(page)
        page.close()
        warm = visit_looplab(context, url, FIRST, measure_run=False)
        row.update(cold=cold["ready"], warm=warm["ready"], bytes=cold["bytes"], run01=cold["run"])
    finally:
        context.close()
    for key, lesson in (("pytest", PYTEST_LESSON), ("openai", OPENAI_LESSON)):
        context = profile(key)
        try:
            found = first_run(context, url, lesson)
            found.pop("page").close()
            row[f"{key}_ready"], row[f"{key}_run"] = found["ready"], found["run"]
            row[f"{key}_loaded"], row[f"{key}_checks"] = found["loaded"], found["checks"]
            row[f"{key}_load"] = found["loadS"] * 1000  # the "(loaded in N s)" the run printed: 0 when nothing loaded
        finally:
            context.close()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    loads = [load_note()]
    with tempfile.TemporaryDirectory(prefix="snapshot-size-") as tmp:
        facts = {name: build(name, options, Path(tmp) / name) for name, options in VARIANTS.items()}
        measured = [name for name in VARIANTS if "error" not in facts[name]]
        servers = {name: SiteServer(Path(tmp) / name) for name in measured}
        rows = {name: [] for name in measured}
        try:
            with sync_playwright() as p:
                for i in range(args.runs):
                    for name in measured:  # alternate, so drift hits every variant alike
                        rows[name].append(measure(p, tmp, name, servers[name].url, i))
                        r = rows[name][-1]
                        print(
                            f"  run {i + 1}/{args.runs} {name:8}: cold {r['cold']:.0f} warm {r['warm']:.0f} "
                            f"pytest ready {r['pytest_ready']:.0f} + run {r['pytest_run']:.0f} "
                            f"openai ready {r['openai_ready']:.0f} + run {r['openai_run']:.0f} ms",
                            flush=True,
                        )
        finally:
            for server in servers.values():
                server.stop()
        loads.append(load_note())
    report(facts, rows, args.runs, loads)
    return 0


def report(facts: dict, rows: dict, runs: int, loads: list[str]) -> None:
    m = {
        name: {key: median([r[key] for r in found]) for key in found[0] if not key.endswith(("loaded", "checks"))}
        for name, found in rows.items()
    }
    print(
        f"\nsnapshot_size: medians of {runs} runs, alternating fresh profiles, headless Chromium ({'; '.join(loads)})"
    )
    names = list(rows) + ["second"]
    print(f"  {'':44}" + "".join(f"{n:>10}" for n in names))

    def line(label: str, values: dict, fmt: str = "{:10.0f}") -> None:
        print(
            f"  {label:44}"
            + "".join(fmt.format(values[n]) if values.get(n) is not None else f"{'-':>10}" for n in names)
        )

    gz = {n: facts[n]["bytes"] / 1e6 for n in rows}
    raw = {n: facts[n]["rawBytes"] / 2**20 for n in rows}
    if "+pytest" in rows and "today" in rows:
        # the second snapshot: today's for every visit, the +pytest one fetched on top when a lesson needs pytest
        gz["second"], raw["second"] = gz["+pytest"], raw["+pytest"]
        second = {
            "cold": m["today"]["cold"],
            "warm": m["today"]["warm"],
            "bytes": m["today"]["bytes"],
            "run01": m["today"]["run01"],
            "pytest_run": m["+pytest"]["pytest_ready"]
            + m["+pytest"]["pytest_run"],  # a new worker restored, then the run
            "pytest_load": 0,
            "openai_run": m["today"]["openai_run"],
            "openai_load": m["today"]["openai_load"],
        }
        m["second"] = second
    line("snapshot, gzipped (MB)", gz, "{:10.2f}")
    line("snapshot, inflated (MiB)", raw, "{:10.1f}")
    line("navigation -> Run enabled, cold (ms)", {n: m[n]["cold"] for n in m})
    line("navigation -> Run enabled, warm (ms)", {n: m[n]["warm"] for n in m})
    line("bytes before the first run, cold (MB)", {n: m[n]["bytes"] / 1e6 for n in m}, "{:10.2f}")
    line("lesson 01: click Run -> checks (ms)", {n: m[n]["run01"] for n in m})
    line("lesson 17 (pytest): Run enabled, cold (ms)", {n: m[n].get("pytest_ready") for n in m})
    line("lesson 17 (pytest): Run -> checks (ms)", {n: m[n]["pytest_run"] for n in m})
    line("lesson 17: of the run, loading pytest (ms)", {n: m[n].get("pytest_load") for n in m})
    line("lesson 14 (openai): Run enabled, cold (ms)", {n: m[n].get("openai_ready") for n in m})
    line("lesson 14 (openai): Run -> checks (ms)", {n: m[n]["openai_run"] for n in m})
    line("lesson 14: of the run, loading openai (ms)", {n: m[n].get("openai_load") for n in m})
    if "today" in rows:
        for name, found in rows.items():
            pairs = " ".join(f"{a['cold'] / b['cold']:.2f}" for a, b in zip(found, rows["today"]))
            print(f"  {name}: cold Run enabled / today's, each run: {pairs}")
    for name, found in rows.items():
        print(
            f"  {name}: pytest run loaded packages {sum(r['pytest_loaded'] for r in found)}/{len(found)} "
            f"({found[-1]['pytest_checks']} checks), openai run loaded packages "
            f"{sum(r['openai_loaded'] for r in found)}/{len(found)} ({found[-1]['openai_checks']} checks)"
        )
    for name, found in facts.items():
        if "error" in found:
            print(f"  {name}: not built: {found['error']}")
    print("  second: estimated, not built (a new worker restored from the +pytest snapshot when a pytest lesson runs:")
    print("          +pytest's cold Run-enabled time for lesson 17 plus its run; its bytes come on top of today's)")
    decide(m, gz)


def decide(m: dict, gz: dict) -> None:
    """The rule, printed with its inputs: a variant replaces today's snapshot only if every visitor's
    cost (cold start, bytes before the first run) rises by at most 10 % and 1 MB, and it wins
    clearly where it aims: the first pytest run ≥ 1 s sooner (+pytest, second), or the cold start
    ≥ 10 % sooner or ≥ 1 MB fewer bytes with lesson 01's first run at most 10 % slower (minimal)."""
    if "today" not in m:
        return
    base = m["today"]
    print("\n  decision rule: replace today's only if cold <= +10 % and bytes <= +1 MB for every visitor, and")
    print("  +pytest/second: first pytest run (ready + run for second) >= 1000 ms sooner;")
    print("  minimal: cold >= 10 % sooner or bytes >= 1 MB fewer, lesson 01's run <= +10 %")
    chosen = []
    for name, v in m.items():
        if name == "today":
            continue
        cold = v["cold"] / base["cold"] - 1
        added = (v["bytes"] - base["bytes"]) / 1e6
        pytest_saved = base["pytest_run"] - v["pytest_run"]
        run01 = v["run01"] / base["run01"] - 1
        if name == "second":  # the second snapshot's bytes are paid only by those who reach a pytest lesson
            added = 0.0
        fair = cold <= 0.10 and added <= 1.0
        if name == "minimal":
            wins = (cold <= -0.10 or added <= -1.0) and run01 <= 0.10
        else:
            wins = pytest_saved >= 1000
        print(
            f"  {name:8}: cold {cold:+.1%}, bytes {added:+.2f} MB, first pytest run {pytest_saved:+.0f} ms sooner, "
            f"lesson 01 run {run01:+.1%}, snapshot {gz.get(name, 0) - gz['today']:+.2f} MB gz -> "
            f"{'wins' if fair and wins else 'does not win'}"
        )
        if fair and wins:
            chosen.append((pytest_saved if name != "minimal" else -cold * base["cold"], name))
    built = [c for c in chosen if c[1] != "second"]
    if built:
        print(f"  decision: {max(built)[1]} (by the rule; make it the default in scripts/build_site.py)")
    else:
        print("  decision: keep today's snapshot as the default (no built variant wins by the rule)")
    if any(name == "second" for _, name in chosen):
        print("  and: a second snapshot with pytest wins by the rule (estimated): worth building next")


if __name__ == "__main__":
    sys.exit(main())
