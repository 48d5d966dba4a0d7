"""The worker's side of a run: set the run's environment, run the lesson's cells, hand back the result.

Loaded by worker.js as module `looplab_bridge`. Events reach the page as they happen through
`send_event`; stdout and stderr are Pyodide's streams, which the worker forwards. The runs of the
last lesson run are kept (their inputs and events, looplab.replay), so the page can fork one of
them from a step: `fork`.
"""

import json
import os
import time

from looplab import lesson, replay, trace

ENV_KEYS = ("LOOPLAB_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API", "LLM_MAX_TOKENS")

kept = replay.Keeper(limit=50)  # the runs of the last lesson run, and the forks made of them
kept.start()


def set_env(env_json: str) -> None:
    """Set the run's environment: nothing from a previous run survives into this one."""
    env = json.loads(env_json)
    for key in ENV_KEYS:
        os.environ.pop(key, None)
        if env.get(key):
            os.environ[key] = str(env[key])


def run(cells_json: str, solution: bool, env_json: str, send_event) -> str:
    """Run one lesson (code cells, then checks) and return the result as JSON text."""
    set_env(env_json)
    kept.clear()
    cells = [lesson.Cell(c["kind"], c["source"], list(c.get("tags") or []))
             for c in json.loads(cells_json)]
    stop_listening = trace.listen(lambda event: send_event(json.dumps(event, default=str)))
    try:
        result = lesson.run_cells(cells, solution=solution)
    finally:
        stop_listening()
    out = result.to_dict()
    out.pop("events", None)  # already sent one by one; errors and check messages come redacted
    return json.dumps(out, default=str)


def fork(request_json: str, env_json: str, send_event) -> str:
    """Re-run a kept run from a step with one edit (looplab.replay); the result as JSON text.

    `request`: {run, step, reply} or {run, step, result, call_id}. The fork's events reach the page
    like a run's; the result carries `fork`: the run's outcome, its number, and the first step
    where it differs from the original.
    """
    request = json.loads(request_json)
    set_env(env_json)
    stop_listening = trace.listen(lambda event: send_event(json.dumps(event, default=str)))
    try:
        out = kept.fork(int(request["run"]), int(request["step"]), reply=request.get("reply"),
                        result=request.get("result"), call_id=request.get("call_id"))
    except ValueError as exc:
        return json.dumps({"ok": False, "error": trace.redact_text(f"The fork could not start: {exc}"), "checks": []})
    finally:
        stop_listening()
    original = [e for e in kept.events if e.get("run") == int(request["run"])]
    forked = [e for e in kept.events if e.get("run") == out["run"]]
    out["first_difference"] = replay.first_difference(original, forked)
    out["fork_of"] = {"run": int(request["run"]), "step": int(request["step"])}
    return json.dumps({"ok": True, "error": None, "checks": [], "fork": trace.redact(out)}, default=str)


def interruptible_sleep() -> None:
    """Make time.sleep wake every 50 ms, so Stop's KeyboardInterrupt ends a long sleep at once.

    Pyodide's sleep blocks the worker without looking at the interrupt buffer; between slices,
    the interpreter does, and a sleeping run stops without restarting Python.
    """
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            real_sleep(min(left, 0.05))

    sleep.__doc__ = real_sleep.__doc__
    time.sleep = sleep
