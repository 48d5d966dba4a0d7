"""The worker's side of a run: set the run's environment, run the lesson's cells, hand back the result.

Loaded by worker.js as module `looplab_bridge`. Events reach the page as they happen through
`send_event`; stdout and stderr are Pyodide's streams, which the worker forwards.
"""

import json
import os
import time

from looplab import lesson, trace

ENV_KEYS = ("LOOPLAB_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API", "LLM_MAX_TOKENS")


def run(cells_json: str, solution: bool, env_json: str, send_event) -> str:
    """Run one lesson (code cells, then checks) and return the result as JSON text."""
    env = json.loads(env_json)
    for key in ENV_KEYS:  # nothing from a previous run survives into this one
        os.environ.pop(key, None)
        if env.get(key):
            os.environ[key] = str(env[key])
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
