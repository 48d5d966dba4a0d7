"""The local model: a small real language model running inside the learner's browser page.

It exists only in the page (the engine is WebAssembly in a worker of its own). In CPython,
LOOPLAB_MODEL=local says so plainly and points to the way to run a local model here: serve it
with Ollama or llama.cpp's llama-server and use it as a live endpoint.
"""

import sys

from .errors import ModelError

IN_CPYTHON = ("the local model runs in the browser: open Loop Lab's page and choose Model → local. "
              "In CPython, serve a model with Ollama (`ollama serve`, then "
              "LLM_BASE_URL=http://127.0.0.1:11434/v1) or llama.cpp (`llama-server -m model.gguf --jinja`, "
              "then LLM_BASE_URL=http://127.0.0.1:8080/v1), set LLM_MODEL, and run with --live")


def local_model():
    """The model function of the page's local model; in CPython, a ModelError that says where it runs."""
    if sys.platform != "emscripten":
        raise ModelError(IN_CPYTHON)
    raise ModelError("the local model is not available in this version of the page")
