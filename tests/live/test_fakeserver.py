"""The fake server itself: CORS and preflight, control endpoints, and running it standalone."""

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from live_adapters import closed_port
from fakeserver import FakeServer, chat_text

from looplab import http


def test_cors_headers_and_preflight(fake):
    status, headers, _ = http.post_json(
        fake.url + "/chat/completions", {"model": "m", "messages": []}, {"Origin": "http://127.0.0.1:8000"}
    )
    assert status == 200 and headers["access-control-allow-origin"] == "http://127.0.0.1:8000"
    req = urllib.request.Request(
        fake.url + "/chat/completions",
        method="OPTIONS",
        headers={
            "Origin": "http://127.0.0.1:8000",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os",
        },
    )
    with urllib.request.urlopen(req) as reply:
        assert reply.status == 204
        assert reply.headers["Access-Control-Allow-Headers"] == "authorization, content-type, x-stainless-os"
    fake.cors = False
    _, headers, _ = http.post_json(fake.url + "/chat/completions", {"model": "m", "messages": []})
    assert "access-control-allow-origin" not in headers
    fake.script({**chat_text("x"), "cors": False})
    fake.cors = True
    _, headers, _ = http.post_json(fake.url + "/chat/completions", {"model": "m", "messages": []})
    assert "access-control-allow-origin" not in headers


def test_control_endpoints(fake):
    http.post_json(
        f"http://127.0.0.1:{fake.port}/_script", {"path": "/v1/chat/completions", "replies": [chat_text("scripted")]}
    )
    _, _, text = http.post_json(fake.url + "/chat/completions", {"model": "m", "messages": []})
    assert json.loads(text)["choices"][0]["message"]["content"] == "scripted"
    _, _, text = http.get_json(f"http://127.0.0.1:{fake.port}/_requests")
    assert [r["path"] for r in json.loads(text)] == ["/v1/chat/completions"]
    http.post_json(f"http://127.0.0.1:{fake.port}/_config", {"key": "k"})
    assert http.post_json(fake.url + "/chat/completions", {"model": "m", "messages": []})[0] == 401
    http.post_json(f"http://127.0.0.1:{fake.port}/_reset", {})
    assert fake.requests == []


def test_runs_standalone():
    port = closed_port()
    script = Path(__file__).resolve().parents[1] / "fakeserver.py"
    proc = subprocess.Popen(
        [sys.executable, str(script), "--port", str(port), "--key", "k"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == f"fake OpenAI-compatible server on http://127.0.0.1:{port}/v1"
        for _ in range(50):
            try:
                status, _, _ = http.get_json(f"http://127.0.0.1:{port}/v1/models", {"Authorization": "Bearer k"})
                break
            except http.NetworkError:
                time.sleep(0.05)
        assert status == 200
    finally:
        proc.terminate()
        proc.wait(5)


def test_a_server_with_a_key_and_models_answers_like_openai():
    with FakeServer(key="k", models=["m"]) as server:
        assert http.post_json(server.url + "/chat/completions", {"model": "m"}, {"Authorization": "Bearer x"})[0] == 401
        status, _, text = http.post_json(
            server.url + "/chat/completions", {"model": "gpt-x"}, {"Authorization": "Bearer k"}
        )
        assert status == 404 and json.loads(text)["error"]["code"] == "model_not_found"
