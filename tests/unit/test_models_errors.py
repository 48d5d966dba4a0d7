"""Every fault reads as one sentence that says what happened and what to do — and never shows the key."""

import json

from looplab.models.errors import ModelError, for_body, for_network, for_status, server_says

BASE = "http://127.0.0.1:8101/v1"
KEY = "sk-unit-SECRETKEY-0123456789"


def body(message, code=None):
    return json.dumps({"error": {"message": message, "type": "invalid_request_error", "code": code}})


def test_status_sentences():
    assert (
        str(for_status(401, BASE + "/chat/completions", BASE, body("bad key")))
        == f"401 from {BASE}: the API key was refused — check it in Settings"
    )
    missing = for_status(
        404, BASE + "/chat/completions", BASE, body("The model `gpt-x` does not exist", "model_not_found"), "gpt-x"
    )
    assert str(missing).startswith(f"model 'gpt-x' not found at {BASE} — check the model name in Settings")
    wrong_url = str(for_status(404, BASE + "/chat/completions", BASE, "404 page not found", "gpt-x"))
    assert "no such endpoint" in wrong_url and "base URL" in wrong_url
    limited = for_status(429, BASE, BASE, body("slow down"), attempts=3, retry_after=30)
    assert "rate limited (tried 3 times); the server asks to wait 30 s" in str(limited) and limited.retryable
    assert "the server failed (tried 3 times)" in str(for_status(503, BASE, BASE, "", attempts=3))
    bad = for_status(400, BASE, BASE, body("'messages' must not be empty"))
    assert str(bad) == f"400 from {BASE}: the request was refused: 'messages' must not be empty"
    assert not bad.retryable and bad.status == 400


def test_network_and_body_sentences():
    assert "within 5 s (tried 3 times)" in str(for_network("timeout", BASE, timeout=5, attempts=3))
    assert "connection refused" in str(for_network("refused", BASE))
    cors = str(for_network("blocked", BASE))
    assert "(CORS)" in cors and "OLLAMA_ORIGINS" in cors and "proxy" in cors
    assert "closed before the reply was complete" in str(for_network("dropped", BASE))
    html = str(for_body(BASE, "<!doctype html><title>hi</title>"))
    assert "was not JSON" in html and "'<!doctype html>" in html and "/v1" in html


def test_the_key_never_appears():
    leaky = body(f"Incorrect API key provided: {KEY}. Find yours at ...")
    for error in (
        for_status(401, BASE, BASE, leaky, secrets=[KEY]),
        for_status(400, BASE, BASE, leaky),
        for_body(BASE, leaky),
        ModelError(f"anything {KEY}", secrets=[KEY]),
        for_status(400, BASE, BASE, body("Bearer abcdefghijklmnop was wrong")),
    ):
        assert KEY not in str(error) and "abcdefghijklmnop" not in str(error)


def test_server_says_reads_the_common_error_shapes():
    assert server_says(body("nope")) == "nope"
    assert server_says(json.dumps({"error": "plain"})) == "plain"
    assert server_says(json.dumps({"detail": "fastapi style"})) == "fastapi style"
    assert server_says("  raw\n text ") == "raw text"
    assert len(server_says("x" * 1000)) == 200
