"""The page's fetch of a keyed request Python makes synchronously where it cannot wait for one
(web/src/page/run/keyedfetch.js, run in Node.js against the fake server): the key added by the
page, Python's own Authorization dropped, no redirect followed, the key masked out of the answer,
and nothing made for a run that is not the live one in progress or for a URL outside the key's scope."""

from __future__ import annotations

import base64
import json

import pytest

from conftest import node_module
from fakeserver import FakeServer

KEY = "sk-e2e-secret-4242"
fetch_js = node_module("web/src/page/run/keyedfetch.js")


@pytest.fixture
def fake():
    with FakeServer() as server:
        yield server


def endpoint(fake, key: str = KEY) -> dict:
    return {"baseUrl": fake.url, "key": key}


def ask(fake, path: str, **more) -> dict:
    return {"method": "POST", "url": fake.url + path, "headers": json.dumps({"Authorization": "Bearer mine"}), **more}


def test_the_page_adds_the_key_and_masks_it_out_of_the_answer(fetch_js, fake):
    fake.script({"json": {"error": f"bad key {KEY}"}, "headers": {"X-Echo": KEY}}, path="/v1/chat/completions")
    body = json.dumps({"model": "m"}).encode()
    got = fetch_js.call(
        "keyedFetch",
        ask(fake, "/chat/completions", body64=base64.b64encode(body).decode(), timeoutMs=5000),
        {"endpoint": endpoint(fake)},
    )
    assert got["status"] == 200, got
    text = base64.b64decode(got["body64"]).decode()
    assert KEY not in text and "[redacted]" in text and KEY not in got["headers"], got
    (request,) = fake.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"  # the page's key, not Python's value
    assert request.text == body.decode() and request.path == "/v1/chat/completions"


def test_a_redirect_is_never_followed_with_the_key(fetch_js, fake):
    fake.script({"status": 307, "headers": {"Location": "/outside"}, "json": {}}, path="/v1/redirect")
    got = fetch_js.call("keyedFetch", ask(fake, "/redirect", body="{}"), {"endpoint": endpoint(fake)})
    assert got == {"error": "redirected"}
    assert [r.path for r in fake.requests] == ["/v1/redirect"]  # /outside never asked for


@pytest.mark.parametrize(
    ("url", "run", "keyed", "why"),
    [
        ("/v1/chat/completions", {"live": True}, True, None),
        ("/v1/chat/completions", None, True, "not asked by the run in progress"),
        ("/v1/chat/completions", {"live": False}, True, "no live run with your key here"),
        ("/v1/chat/completions", {"live": True}, False, "no live run with your key here"),
        ("/v1/..%2Foutside", {"live": True}, True, "outside your endpoint's address"),
        ("/outside", {"live": True}, True, "outside your endpoint's address"),
        ("http://127.0.0.2:9/v1/x", {"live": True}, True, "outside your endpoint's address"),
    ],
)
def test_the_page_makes_a_keyed_request_only_for_the_live_run_and_the_keys_scope(fetch_js, url, run, keyed, why):
    base = "http://127.0.0.1:9/v1"
    request = {"url": url if url.startswith("http") else "http://127.0.0.1:9" + url}
    given = {"run": run, "blocking": True, "keyed": keyed, "endpoint": {"baseUrl": base, "key": KEY}}
    assert fetch_js.call("refusal", request, given) == why
    keyless = {**given, "endpoint": {"baseUrl": base, "key": ""}}  # no key set: nothing to add
    assert fetch_js.call("refusal", request, keyless) == (run and "no live run with your key here" or why)
