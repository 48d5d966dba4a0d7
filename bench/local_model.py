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
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from browser import wait_until  # noqa: E402
from pagevisits import visits  # noqa: E402

MODEL = ROOT / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
LESSON = "99-bench-local"  # bench/fixtures/99-bench-local.py
RUNS, TOKENS = 3, 48
PROMPT = "Count from one to one hundred in words, separated by commas."
TIMEOUT = 900_000


def messages(run: int) -> list[dict]:
    return [{"role": "system", "content": f"Run {run + 1}. You are a counting assistant."},
            {"role": "user", "content": PROMPT}]


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
    rows = [page.evaluate("body => chat(body)", {"messages": messages(run), "max_tokens": TOKENS}) for run in range(RUNS)]
    return {"load_s": float(state.get_attribute("data-load-ms")) / 1000, "ready_s": loaded,
            "threads": int(state.get_attribute("data-threads")), "rows": rows}


def looplab(context, url: str, model: Path) -> dict:
    page = context.new_page()
    page.goto(f"{url}#/{LESSON}")
    expect(page.get_by_test_id("run")).to_be_enabled(timeout=120_000)
    page.get_by_test_id("model-toggle").select_option("local")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--threads", type=int, default=None, help="the bare page's threads (default: as Loop Lab)")
    args = parser.parse_args(argv)
    if not args.model.exists():
        print(f"local_model: {args.model} is missing (`make local-test-model`)", file=sys.stderr)
        return 1
    results = visits([("bare", lambda context, url: bare(context, url, args.model, args.threads)),
                      ("looplab", lambda context, url: looplab(context, url, args.model))])
    ours, ref = results["looplab"], results["bare"]
    a, b = speeds(ours["rows"]), speeds(ref["rows"])
    load = os.getloadavg()[0]
    print(f"local model: {args.model.name} ({args.model.stat().st_size / 1e6:.1f} MB), {RUNS} greedy replies "
          f"of {TOKENS} tokens, load average {load:.1f} on {os.cpu_count()} cores")
    print(f"  {'':28} {'Loop Lab':>10} {'bare':>10} {'ratio':>7}")
    rows = [("threads", ours["threads"], ref["threads"], None),
            ("load (s, engine)", ours["load_s"], ref["load_s"], ref["load_s"] / ours["load_s"]),
            ("pick -> ready (s)", ours["ready_s"], ref["ready_s"], None),
            ("prompt tokens/s", a["read"], b["read"], a["read"] / b["read"]),
            ("generation tokens/s", a["write"], b["write"], a["write"] / b["write"]),
            ("first token (ms, page)", a["first"], b["first"], b["first"] / a["first"]),
            ("reply wall time (ms)", a["wall"], b["wall"], b["wall"] / a["wall"]),
            ("end-to-end tokens/s", a["end_to_end"], b["end_to_end"], a["end_to_end"] / b["end_to_end"])]
    for label, mine, theirs, ratio in rows:
        fmt = (lambda v: f"{v:10.0f}") if isinstance(mine, int) or label.endswith("(ms, page)") or "wall" in label else (lambda v: f"{v:10.2f}")
        print(f"  {label:28} {fmt(mine)} {fmt(theirs)} {'' if ratio is None else f'{ratio:7.2f}'}")
    print("  (ratio: Loop Lab as a fraction of bare, higher is better; pick -> ready includes Loop Lab's speed "
          "measurement and OPFS copy)")
    same = [r["text"] for r in ours["rows"]] == [r["text"] for r in ref["rows"]]
    print(f"  same replies on both pages: {same}; Loop Lab's status: {ours['status']}")
    print(f"  first reply: {ours['rows'][0]['text'][:100]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
