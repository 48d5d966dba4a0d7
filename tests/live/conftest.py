"""Fixtures for the live-model tests: a fake OpenAI-compatible server, and no host but 127.0.0.1."""

import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for fakeserver

from fakeserver import FakeServer

from live_adapters import KEY  # noqa: F401


@pytest.fixture(autouse=True)
def only_localhost(monkeypatch):
    """Every socket these tests open goes to 127.0.0.1; anything else fails the test."""
    real_connect = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise AssertionError(f"a test tried to reach {host}; only 127.0.0.1 is allowed")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for name in (
        "LLM_BASE_URL",
        "LLM_API_KEY",
        "LLM_MODEL",
        "LLM_API",
        "LLM_TIMEOUT",
        "LLM_EMBED_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "LOOPLAB_MODEL",
        "LLM_STREAM",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake():
    """A running fake server with no key check; `fake.url` is its /v1 base URL."""
    with FakeServer() as server:
        yield server


@pytest.fixture
def keyed():
    """A running fake server that accepts only KEY and the model 'fake-model'."""
    with FakeServer(key=KEY, models=["fake-model"]) as server:
        yield server
