"""The fault matrix, for every adapter, against a real local server: what the learner reads, and whether it was retried."""

import pytest
from live_adapters import ADAPTERS, GOOD, PATH, build, closed_port
from fakeserver import error

from looplab.models.errors import ModelError

FAST = {"retry-after-ms": "1"}  # lets the SDK's own retries skip their backoff too
BIG = {"choices": [{"message": {"role": "assistant", "content": "x" * 200}}]}
USER = [{"role": "user", "content": "hi"}]

# name, scripted replies, what the sentence says ({base} is the base URL), requests made
FAILS = [
    (
        "401",
        [error(401, "Incorrect API key provided")],
        "401 from {base}: the API key was refused — check it in Settings",
        1,
    ),
    ("403", [error(403, "not allowed")], "403 from {base}: the key may not use this model", 1),
    (
        "404 model",
        [error(404, "The model `fake-model` does not exist", code="model_not_found")],
        "model 'fake-model' not found at {base} — check the model name in Settings",
        1,
    ),
    ("404 url", [{"status": 404, "body": "404 page not found"}], "there is no such endpoint — check the base URL", 1),
    (
        "400",
        [error(400, "'messages' is too long")],
        "400 from {base}: the request was refused: 'messages' is too long",
        1,
    ),
    ("422", [error(422, "bad tool schema")], "422 from {base}: the request was refused: bad tool schema", 1),
    ("429 x3", [error(429, "slow down", headers=FAST)] * 3, "429 from {base}: rate limited (tried 3 times)", 3),
    ("500 x3", [error(500, "boom", headers=FAST)] * 3, "500 from {base}: the server failed (tried 3 times)", 3),
    ("503 x3", [error(503, "overloaded", headers=FAST)] * 3, "503 from {base}: the server failed (tried 3 times)", 3),
    ("not JSON", [{"body": "<html><body>Welcome</body></html>"}], "the reply from {base} ", 1),
    ("dropped x3", [{"drop": True}] * 3, "the connection to {base} closed before the reply was complete", 3),
    (
        "truncated x3",
        [{"json": BIG, "truncate": 20}] * 3,
        "the connection to {base} closed before the reply was complete",
        3,
    ),
    ("timeout x3", [{"delay": 1.0, **GOOD["chat"]}] * 3, "no reply from {base} within", 3),
]

RECOVERS = [
    ("429 Retry-After", [error(429, headers={"Retry-After": "0", **FAST})]),
    ("408", [error(408, headers=FAST)]),
    ("409", [error(409, headers=FAST)]),
    ("500", [error(500, headers=FAST)]),
    ("502 then 503", [error(502, headers=FAST), error(503, headers=FAST)]),
    ("dropped", [{"drop": True}]),
    ("timeout", [{"delay": 2.0, **GOOD["chat"]}]),
]


@pytest.mark.parametrize("kind", ADAPTERS)
@pytest.mark.parametrize("name, replies, says, tries", FAILS, ids=[f[0] for f in FAILS])
def test_each_fault_is_one_clear_sentence(fake, kind, name, replies, says, tries):
    fake.script(*replies, GOOD[kind])
    model = build(kind, fake.url, timeout=0.3 if name.startswith("timeout") else 5.0)
    with pytest.raises(ModelError) as caught:
        model(USER, [])
    assert says.format(base=fake.url) in str(caught.value)
    assert len(fake.posts(PATH[kind])) == tries
    assert "\n" not in str(caught.value) and "Traceback" not in str(caught.value)


@pytest.mark.parametrize("kind", ADAPTERS)
@pytest.mark.parametrize("name, replies", RECOVERS, ids=[r[0] for r in RECOVERS])
def test_transient_faults_are_retried(fake, kind, name, replies):
    fake.script(*replies, GOOD[kind])
    # generous timeouts: a loaded machine must not turn a slow good reply into one more try
    reply = build(kind, fake.url, timeout=1.0 if name == "timeout" else 5.0)(USER, [])
    assert reply["content"] == "ok"
    assert len(fake.posts(PATH[kind])) == len(replies) + 1


@pytest.mark.parametrize("kind", ADAPTERS)
def test_connection_refused(kind):
    base = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(ModelError) as caught:
        build(kind, base)(USER, [])
    assert f"could not connect to {base}: connection refused" in str(caught.value)


@pytest.mark.parametrize("kind", ["chat", "responses", "prompted"])
def test_cut_off_json_is_named(fake, kind):
    fake.script({"body": '{"choices": [{"message": '}, GOOD[kind])
    with pytest.raises(ModelError, match=r"was cut off \(incomplete JSON\)"):
        build(kind, fake.url)(USER, [])
    assert len(fake.posts()) == 1


@pytest.mark.parametrize("kind", ["chat", "responses", "prompted"])
def test_a_redirect_is_named_not_followed_as_a_get(fake, kind):
    moved = "https://api.example.invalid/v1"  # never contacted: the redirect is reported, not followed
    fake.script({"status": 301, "headers": {"Location": moved}, "body": ""}, GOOD[kind])
    with pytest.raises(ModelError) as caught:
        build(kind, fake.url)(USER, [])
    assert f"the endpoint moved to {moved}" in str(caught.value)
    assert "as the base URL in Settings" in str(caught.value)
    assert len(fake.requests) == 1 and fake.requests[0].method == "POST"
