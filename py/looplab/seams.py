"""The loop's two seams: the model it asks (`ModelFn`) and the tools it runs (`Tools`).

`run_agent` (loop.py) is handed one of each and uses nothing of them but what is named here, so
anything that has these shapes plugs in. Every model of models/ is a `ModelFn`, and so is a plain
function:

    def model(messages: list[dict], tools: list[dict]) -> dict:
        return {"role": "assistant", "content": "Hello."}

A `Toolbox` (tools.py) is a `Tools`; so is a replayed run's `ReplayTools` (replay.py), which
answers the recorded results first. `run` never raises: a failure comes back as text that starts
with `error:`. A Toolbox built with `parallel=True` may also run a reply's calls side by side
(parallel.py); any other `Tools` runs them one by one.
"""

from typing import Protocol, runtime_checkable


@runtime_checkable
class ModelFn(Protocol):
    """A model: the messages so far and the tools' schemas in, one assistant message dict out.

    It may raise; the loop turns that into a stop with reason `error`."""

    def __call__(self, messages: list[dict], tools: list[dict], /) -> dict: ...


@runtime_checkable
class Tools(Protocol):
    """What the loop asks of its tools: their names and schemas, which need a person, and a run."""

    def names(self) -> list[str]: ...

    def __len__(self) -> int: ...

    def schemas(self) -> list[dict]: ...

    def needs_approval(self, name: str) -> bool: ...

    def run(self, name: str, arguments_json: str) -> str: ...
