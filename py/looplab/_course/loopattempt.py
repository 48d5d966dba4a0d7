"""attempt(loop, ...): a learner's loop run for a lesson's checks, whatever it does.

A loop the learner wrote may raise, or return something other than `(result, messages)`. The
checks read what `attempt` gives back instead: the pair when it is one, else a result whose
`stopped` says what happened (`raised ValueError: ...`, `returned None`) and no messages, so a
check fails with that sentence and the checks after it still run.

    from looplab import attempt
    result, messages = attempt(my_run_agent, "Which branch had more April visits?", model, box)
"""

from collections.abc import Callable


def attempt(function: Callable, *args, **kwargs) -> tuple[dict, list]:
    """Run the learner's loop; anything but a (result, messages) pair becomes a result to read."""
    try:
        out = function(*args, **kwargs)
    except Exception as exc:
        return {"stopped": f"raised {type(exc).__name__}: {exc}"}, []
    if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], dict)):
        return {"stopped": f"returned {out!r:.80}"}, []
    return out
