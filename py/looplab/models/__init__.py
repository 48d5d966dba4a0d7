"""Models: functions `model_fn(messages, tools) -> assistant message dict`.

`scripted` replies come prepared (offline, deterministic); the live adapters (chat completions
over raw HTTP, the openai SDK, the Responses API, prompt-based JSON tool calling) talk to an
OpenAI-compatible endpoint. `pick_model` chooses between them from `LOOPLAB_MODEL`, so the same
lesson code runs both ways.
"""

from collections.abc import Callable

from ..modelerror import ModelError
from ..modelmode import MODES, model_mode
from .scripted import ScriptExhausted, ScriptedModel, call, calls, failing, final, scripted


def pick_model(offline: list | Callable) -> Callable:
    """The lesson's model: its scripted replies (or offline model function), the local or the live one.

    `offline` is a list of prepared replies or a model function (a rule-based fake brain); with
    LOOPLAB_MODEL=live the configured endpoint is used instead, with LOOPLAB_MODEL=local the
    model running in the browser page.
    """
    mode = model_mode()
    if mode == "live":
        from .live import live_model

        return live_model()
    if mode == "local":
        from .local import local_model

        return local_model()
    return offline if callable(offline) else scripted(offline)


__all__ = [
    "ModelError",
    "ScriptExhausted",
    "ScriptedModel",
    "call",
    "calls",
    "failing",
    "final",
    "scripted",
    "MODES",
    "model_mode",
    "pick_model",
]
