"""The local model in the page, against wllama driven directly from a bare page, on the same GGUF file.

Prints figures; asserts nothing. Run: `make bench`, or `python bench/local_model.py [--model FILE]
[--threads N]` (default model: the test model of mk/localmodel.mk).

Both pages are served from one build of the site (the same wllama wasm, the same load options)
and each gets the file through its file picker, in a fresh browser profile:

  Loop Lab    Settings → Local model → the file; then a bench lesson (bench/fixtures/) calls the
              model from Python through looplab.models.local, the answer buffer and the engine
  bare        web/bench/wllama.html: wllama's own ES module, loadModel, createChatCompletion

For each, three greedy replies of at most 48 tokens to the same prompts (a new system line each
time, so the prompt is read again): load time, prompt reading and writing speed as llama.cpp
measured them, first-token latency in the page, and the wall time of a reply — for Loop Lab as
Python waited for it. The ratios Loop Lab / bare say what our plumbing costs (goal: ≥ 0.9 of the
bare page's tokens/s). The replies must be the same text: the same model, decoded greedily.

Then the prompt's KV cache (tests/e2e/fixtures/93b-e2e-local-cache.py): lesson 15's agent runs
short tasks one after the other (turns of a chat) for 4 steps on the same model in Loop Lab's
page, with the cache reused between steps (`cache_prompt`, the page's default) as the first run
after the model loaded, again as a later run (the agent's fixed prefix, system message and
tools, still cached from the run before), and without the cache; per step, the prompt tokens the
engine evaluated and in all, and the step's wall time; then each run's total and its speed-up
against no cache (goal: steps after the first evaluate only their new tokens, and the run is ≥ 3×
faster end to end), and whether the replies are the same at every step. `--cache` runs only this part; `--webgpu` instead
runs the three replies in Loop Lab's page twice, on the CPU and on WebGPU (SwiftShader), and
says whether the texts agree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_until

# Chromium's WebGPU on SwiftShader (Vulkan on the CPU): an adapter where the machine has no GPU
WEBGPU_ARGS = [a for a in CHROMIUM_ARGS if a != "--disable-gpu"] + [
    "--enable-unsafe-webgpu",
    "--use-webgpu-adapter=swiftshader",
]

MODEL = ROOT / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
LESSON = "99-bench-local"  # bench/fixtures/99-bench-local.py
CACHE_LESSON = "93b-e2e-local-cache"  # tests/e2e/fixtures/93b-e2e-local-cache.py (the e2e test uses it too)
RUNS, TOKENS = 3, 48
PROMPT = "Count from one to one hundred in words, separated by commas."
TIMEOUT = 900_000


def messages(run: int) -> list[dict]:
    return [
        {"role": "system", "content": f"Run {run + 1}. You are a counting assistant."},
        {"role": "user", "content": PROMPT},
    ]


def speeds(rows: list[dict]) -> dict:
    """Medians over the replies: reading and writing tokens/s (llama.cpp's timings), first token, wall."""

    def median(values):
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else float("nan")

    return {
        "read": median([r["prompt_tokens"] / r["prompt_ms"] * 1000 for r in rows if r.get("prompt_ms")]),
        "write": median([r["tokens"] / r["generate_ms"] * 1000 for r in rows if r.get("generate_ms")]),
        "first": median([r.get("first_token_ms") for r in rows]),
        "wall": median([r["wall_ms"] for r in rows]),
        "end_to_end": median([r["tokens"] / r["wall_ms"] * 1000 for r in rows if r.get("wall_ms")]),
    }


def bare(context, url: str, model: Path, threads: int | None) -> dict:
    page = context.new_page()
    page.goto(f"{url}bench/wllama.html" + (f"?threads={threads}" if threads else ""))
    started = time.monotonic()
    page.locator("#model").set_input_files(str(model))
    expect(page.locator("#state")).to_have_text("ready", timeout=TIMEOUT)
    loaded = time.monotonic() - started
    state = page.locator("#state")
    rows = [
        page.evaluate("body => chat(body)", {"messages": messages(run), "max_tokens": TOKENS}) for run in range(RUNS)
    ]
    return {
        "load_s": float(state.get_attribute("data-load-ms")) / 1000,
        "ready_s": loaded,
        "threads": int(state.get_attribute("data-threads")),
        "rows": rows,
    }


def looplab(context, url: str, model: Path, lesson: str = LESSON, query: str = "") -> dict:
    page = context.new_page()
    page.goto(f"{url}{query}#/{lesson}")
    expect(page.get_by_test_id("run")).to_be_enabled(timeout=120_000)
    page.get_by_test_id("model-toggle").select_option("local")
    expect(page.locator("dialog[open]")).to_have_count(1)  # the page looked for a kept model, found none
    started = time.monotonic()
    page.get_by_test_id("local-model-file").set_input_files(str(model))
    status = page.get_by_test_id("local-model-status")
    expect(status).to_have_attribute("data-state", "ready", timeout=TIMEOUT)
    ready = time.monotonic() - started
    text = status.inner_text()
    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    page.get_by_test_id("run").click()
    wait_until(page, "() => document.querySelector('[data-testid=status]').dataset.runEnded !== undefined", TIMEOUT)
    output = page.get_by_test_id("output").inner_text()
    line = next((row for row in output.splitlines() if row.startswith("BENCH ")), None)
    if line is None:
        raise SystemExit(f"the bench lesson printed no figures:\n{output}")
    load = float(text.split("loaded in ", 1)[1].split(" s", 1)[0])
    threads = int(text.split(" thread", 1)[0].rsplit("· ", 1)[1])
    return {"load_s": load, "ready_s": ready, "threads": threads, "status": text, "rows": json.loads(line[6:])}


def build(out: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_site.py"),
            "--out",
            str(out),
            "--lessons",
            str(ROOT / "lessons"),
            "--lessons",
            str(ROOT / "bench" / "fixtures"),
            "--lessons",
            str(ROOT / "tests" / "e2e" / "fixtures"),
        ],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--threads", type=int, default=None, help="the bare page's threads (default: as Loop Lab)")
    parser.add_argument("--cache", action="store_true", help="only the KV-cache run of lesson 15's agent")
    parser.add_argument(
        "--webgpu", action="store_true", help="only Loop Lab's replies on the CPU and on WebGPU (SwiftShader), compared"
    )
    args = parser.parse_args(argv)
    if not args.model.exists():
        print(f"local_model: {args.model} is missing (`make local-test-model`)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        site = Path(tmp) / "site"
        build(site)
        server = SiteServer(site)
        try:
            results = {}
            visits = [("cache", lambda c: looplab(c, server.url, args.model, CACHE_LESSON))]
            if args.webgpu:
                visits = [
                    ("looplab", lambda c: looplab(c, server.url, args.model)),
                    ("webgpu", lambda c: looplab(c, server.url, args.model, query="?gpu=any")),
                ]  # SwiftShader: software
            elif not args.cache:
                visits = [
                    ("bare", lambda c: bare(c, server.url, args.model, args.threads)),
                    ("looplab", lambda c: looplab(c, server.url, args.model)),
                ] + visits
            for name, visit in visits:
                flags = WEBGPU_ARGS if name == "webgpu" else CHROMIUM_ARGS
                context = p.chromium.launch_persistent_context(
                    str(Path(tmp) / f"profile-{name}"), executable_path=CHROMIUM, args=flags
                )
                try:
                    results[name] = visit(context)
                finally:
                    context.close()
        finally:
            server.stop()
    if args.webgpu:
        gpu(results["looplab"], results["webgpu"])
        return 0
    if not args.cache:
        compare(args.model, results["looplab"], results["bare"])
    cached(results["cache"])
    return 0


def gpu(cpu: dict, webgpu: dict) -> None:
    """The same three greedy replies on the CPU and on WebGPU: speeds, and whether the texts agree."""
    a, b = speeds(cpu["rows"]), speeds(webgpu["rows"])
    print(
        f"Loop Lab's page on the CPU and on WebGPU (SwiftShader: a GPU emulated on the CPU, so only "
        f"correctness is meant here, not speed); load average {os.getloadavg()[0]:.1f}"
    )
    for label, result, speed in (("cpu", cpu, a), ("webgpu", webgpu, b)):
        print(f"  {label:7} {result['status']}")
        print(
            f"  {'':7} reads {speed['read']:.1f} tokens/s, writes {speed['write']:.1f} tokens/s, reply {speed['wall']:.0f} ms"
        )
    same = [r["text"] for r in cpu["rows"]] == [r["text"] for r in webgpu["rows"]]
    print(f"  WebGPU in use: {'WebGPU' in webgpu['status']}; same replies on both: {same}")
    for x, y in zip(cpu["rows"], webgpu["rows"]):
        print(f"  cpu    {x['text'][:90]!r}\n  webgpu {y['text'][:90]!r}")


def cached(result: dict) -> None:
    """The KV-cache table: per step, evaluated / all prompt tokens and wall time, for the first run
    with the cache, a later run of the same agent (its fixed prefix already cached), and no cache."""
    runs = result["rows"]
    names = [n for n in ("cached", "later", "uncached") if n in runs]
    heads = {"cached": "cache, first run", "later": "cache, later run", "uncached": "no cache"}
    print(
        f"lesson 15's agent, 4 steps over short tasks, in Loop Lab's page ({result['threads']} threads), "
        f"load average {os.getloadavg()[0]:.1f}; Loop Lab's status: {result['status']}"
    )
    print("  step " + "".join(f"{heads[n] + ': evaluated/all, ms':>36}" for n in names) + "  same replies")
    steps = max(len(runs[n]) for n in names)
    cell = lambda r: f"{r.get('evaluated')}/{r.get('tokens')} {r.get('wall_ms', 0):>8}" if r else "-"  # noqa: E731
    for i in range(steps):
        row = [runs[n][i] if i < len(runs[n]) else {} for n in names]
        same = len({r.get("reply") for r in row}) == 1
        print(f"  {i + 1:>4} " + "".join(f"{cell(r):>36}" for r in row) + f"  {same}")
    base = runs["uncached"]
    total = {n: sum(r["wall_ms"] for r in runs[n]) for n in names}
    read = {n: sum(r["evaluated"] or 0 for r in runs[n]) for n in names}
    for n in names:
        if n == "uncached":
            continue
        print(
            f"  run, {heads[n]}: {total[n] / 1000:.1f} s against {total['uncached'] / 1000:.1f} s without: "
            f"{total['uncached'] / total[n] if total[n] else float('nan'):.2f}× faster; "
            f"prompt tokens evaluated {read[n]} against {read['uncached']}; "
            f"same replies at every step: {[r['reply'] for r in runs[n]] == [r['reply'] for r in base]}"
        )
    for n in names:  # the engine's speeds: in wasm, reading a prompt is about as slow as writing
        read_ms = sum(r.get("read_ms") or 0 for r in runs[n])
        wrote, write_ms = sum(r.get("written") or 0 for r in runs[n]), sum(r.get("write_ms") or 0 for r in runs[n])
        if read_ms and write_ms:
            print(
                f"  {heads[n]}: read {read[n] / read_ms * 1000:.1f} prompt tokens/s ({read_ms / 1000:.1f} s), "
                f"wrote {wrote / write_ms * 1000:.1f} tokens/s ({write_ms / 1000:.1f} s)"
            )
    if "later" in runs and runs["cached"] and len(runs["later"]) == len(runs["cached"]):
        # the first run must read step 1's whole prompt (no cache has it yet); at best its other
        # steps are as quick as the later run's
        best = runs["cached"][0]["wall_ms"] + sum(r["wall_ms"] for r in runs["later"][1:])
        print(
            f"  the first run at best (its step 1, then the later run's steps): {best / 1000:.1f} s, "
            f"{total['uncached'] / best:.2f}× faster than no cache"
        )
    later = all(r["evaluated"] is not None and r["evaluated"] < r["tokens"] for r in runs["cached"][1:])
    print(f"  steps after the first evaluated only part of their prompt: {later}")
    for i, r in enumerate(base):
        others = {n: runs[n][i]["reply"] for n in names if n != "uncached" and i < len(runs[n])}
        differ = {n: v for n, v in others.items() if v != r["reply"]}
        print(f"  step {i + 1}: {r['reply'][:100]!r}" + "".join(f"; {n}: {v!r:.100}" for n, v in differ.items()))


def compare(model: Path, ours: dict, ref: dict) -> None:
    """The Loop Lab / bare table."""
    a, b = speeds(ours["rows"]), speeds(ref["rows"])
    load = os.getloadavg()[0]
    print(
        f"local model: {model.name} ({model.stat().st_size / 1e6:.1f} MB), {RUNS} greedy replies "
        f"of {TOKENS} tokens, load average {load:.1f} on {os.cpu_count()} cores"
    )
    print(f"  {'':28} {'Loop Lab':>10} {'bare':>10} {'ratio':>7}")
    rows = [
        ("threads", ours["threads"], ref["threads"], None),
        ("load (s, engine)", ours["load_s"], ref["load_s"], ref["load_s"] / ours["load_s"]),
        ("pick -> ready (s)", ours["ready_s"], ref["ready_s"], None),
        ("prompt tokens/s", a["read"], b["read"], a["read"] / b["read"]),
        ("generation tokens/s", a["write"], b["write"], a["write"] / b["write"]),
        ("first token (ms, page)", a["first"], b["first"], b["first"] / a["first"]),
        ("reply wall time (ms)", a["wall"], b["wall"], b["wall"] / a["wall"]),
        ("end-to-end tokens/s", a["end_to_end"], b["end_to_end"], a["end_to_end"] / b["end_to_end"]),
    ]
    for label, mine, theirs, ratio in rows:
        fmt = (
            (lambda v: f"{v:10.0f}")
            if isinstance(mine, int) or label.endswith("(ms, page)") or "wall" in label
            else (lambda v: f"{v:10.2f}")
        )
        print(f"  {label:28} {fmt(mine)} {fmt(theirs)} {'' if ratio is None else f'{ratio:7.2f}'}")
    print(
        "  (ratio: Loop Lab as a fraction of bare, higher is better; pick -> ready includes Loop Lab's speed "
        "measurement and OPFS copy)"
    )
    same = [r["text"] for r in ours["rows"]] == [r["text"] for r in ref["rows"]]
    print(f"  same replies on both pages: {same}; Loop Lab's status: {ours['status']}")
    print(f"  first reply: {ours['rows'][0]['text'][:100]!r}")


if __name__ == "__main__":
    sys.exit(main())
