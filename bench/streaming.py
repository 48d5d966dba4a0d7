"""A streamed reply's first characters on screen: from the server's first byte (live) and from the
engine's first token (local) to the page showing them.

Prints figures; asserts nothing. Run: `make bench-streaming`, or `python bench/streaming.py
[--model FILE]` (the local part needs the test model of mk/localmodel.mk; without it, live only).

One build of the site with bench/fixtures; a lesson (99-bench-stream) makes five one-step runs,
each reply streamed:
  live   against tests/fakeserver.py with fixed delays (0.2 s before the answer, 50 ms between
         events of 4 characters): the server notes when it wrote each stream's first byte
         (time.time()); the page notes, with a MutationObserver, when the first characters
         appear in the inspector's current step (data-testid stream-text) and in the status line,
         on the page's wall clock (performance.timeOrigin + now()), and the frame after (paint).
  local  the same lesson on the local model (SmolLM2-135M in wllama): the engine marks each
         reply's first token (performance mark "local-first-token"); the same observer.
Medians of the five; the goal is 100 ms or less for both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "tests"))
from browser import wait_until
from fakeserver import FakeServer, chat_text
from pagevisits import visits

MODEL = ROOT / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
LESSON = "99-bench-stream"  # bench/fixtures/99-bench-stream.py
RUNS = 5
REPLY = "One, two, three, four, five, six, seven, eight, nine, ten."
TIMEOUT = 600_000

# Each time streamed text first shows (the inspector's stream box connected with text, or the
# status line's "The model writes"), its wall-clock time and that of the next frame.
OBSERVE = """() => {
  window.__seen = { stream: [], status: [] };
  const now = () => performance.timeOrigin + performance.now();
  let box = false, line = false;
  const note = (list) => { const at = now(); const row = { at, frame: null }; list.push(row);
    requestAnimationFrame(() => { row.frame = now(); }); };
  new MutationObserver(() => {
    const el = document.querySelector('[data-testid=stream-text]');
    const shown = Boolean(el && el.isConnected && el.textContent);
    if (shown && !box) note(window.__seen.stream);
    box = shown;
    const said = document.querySelector('[data-role=status-text]').textContent.includes('The model writes');
    if (said && !line) note(window.__seen.status);
    line = said;
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


def run_lesson(page) -> None:
    page.evaluate(OBSERVE)
    page.get_by_test_id("run").click()
    wait_until(page, "() => document.querySelector('[data-testid=status]').dataset.runEnded !== undefined", TIMEOUT)
    page.wait_for_timeout(100)  # the last frame callbacks
    output = page.get_by_test_id("output").inner_text()
    if output.count("BENCH ") != RUNS:
        raise SystemExit(f"the bench lesson did not make its {RUNS} runs:\n{output}")


def seen(page) -> dict:
    return page.evaluate("() => window.__seen")


def live(context, url: str) -> dict:
    with FakeServer(streaming={"split": 4, "chunk_delay": 0.05}) as fake:
        page = context.new_page()
        page.goto(f"{url}#/{LESSON}")
        expect(page.get_by_test_id("run")).to_be_enabled(timeout=120_000)
        page.get_by_test_id("settings").click()
        dialog = page.locator("dialog[open]")
        dialog.locator("select[name=preset]").select_option("custom")
        dialog.locator("input[name=baseUrl]").fill(fake.url)
        dialog.locator("input[name=model]").fill("fake-model")
        dialog.get_by_role("button", name="Save").click()
        page.get_by_test_id("model-toggle").select_option("live")
        expect(page.get_by_test_id("run")).to_be_enabled(timeout=120_000)
        fake.script(*[{**chat_text(REPLY), "delay": 0.2} for _ in range(RUNS)])
        run_lesson(page)
        marks = seen(page)
        firsts = [t * 1000 for t in fake.first_bytes]
    return {"origin": firsts, **marks}


def local(context, url: str, model: Path) -> dict:
    page = context.new_page()
    page.goto(f"{url}#/{LESSON}")
    expect(page.get_by_test_id("run")).to_be_enabled(timeout=120_000)
    page.get_by_test_id("model-toggle").select_option("local")
    page.get_by_test_id("local-model-file").set_input_files(str(model))
    expect(page.get_by_test_id("local-model-status")).to_have_attribute("data-state", "ready", timeout=TIMEOUT)
    page.locator("dialog[open]").get_by_role("button", name="Cancel").click()
    page.evaluate("() => performance.clearMarks('local-first-token')")
    run_lesson(page)
    firsts = page.evaluate(
        "() => performance.getEntriesByName('local-first-token').map((m) => performance.timeOrigin + m.startTime)"
    )
    return {"origin": firsts, **seen(page)}


def latencies(result: dict) -> dict:
    """Per run, ms from its origin (first byte / first token) to the first text shown: in the DOM and at the next frame."""
    out = {}
    for where in ("stream", "status"):
        rows = result[where]
        pairs = list(zip(result["origin"], rows))
        out[where] = [row["at"] - origin for origin, row in pairs]
        out[where + " frame"] = [row["frame"] - origin for origin, row in pairs if row["frame"]]
    out["runs"] = min(len(result["origin"]), len(result["stream"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL)
    args = parser.parse_args(argv)
    each = [("live", live)]
    if args.model.exists():
        each.append(("local", lambda context, url: local(context, url, args.model)))
    else:
        print(f"streaming: {args.model} is missing (`make local-test-model`): local left out", file=sys.stderr)
    results = visits(each)
    print(
        f"streamed text to the screen, medians of {RUNS} replies (ms; goal <= 100), load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"  {'':34} {'inspector':>10} {'+frame':>8} {'status':>8} {'+frame':>8}  runs")
    for name, label in (("live", "live: server's first byte ->"), ("local", "local: engine's first token ->")):
        if name not in results:
            continue
        got = latencies(results[name])
        med = {k: statistics.median(v) if v else float("nan") for k, v in got.items() if k != "runs"}
        print(
            f"  {label:34} {med['stream']:10.1f} {med['stream frame']:8.1f} {med['status']:8.1f} "
            f"{med['status frame']:8.1f}  {got['runs']}"
        )
        print(f"    each (inspector): {', '.join(f'{v:.0f}' for v in got['stream'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
