"""Our httpx2_jsfetch (py-extra/), the SDK's transport in the browser, run in CPython with a stand-in for XHR."""

import sys
import urllib.error
import urllib.request
from pathlib import Path

import httpx2
import pytest
from fakeserver import chat_text
from openai import OpenAI

from looplab.models.errors import ModelError
from looplab.models.sdk import openai_model_fn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "py-extra"))
from httpx2_jsfetch import BLOCKED, JavascriptFetchTransport


def urllib_send(method, url, headers, body, timeout):
    """What the synchronous XHR does, done by urllib (status, header pairs, bytes)."""
    request = urllib.request.Request(url, data=body or None, headers=headers, method=method)
    try:
        answer = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        answer = error
    with answer:
        return answer.status, list(answer.headers.items()) + [("Content-Encoding", "gzip")], answer.read()


def sdk(base_url, send):
    client = OpenAI(
        base_url=base_url,
        api_key="sk-js-0123456789abcdef",
        max_retries=2,
        http_client=httpx2.Client(transport=JavascriptFetchTransport(send=send)),
    )
    client._calculate_retry_timeout = lambda *a, **k: 0.001
    return openai_model_fn(client, "fake-model")


def test_the_sdk_runs_on_our_transport(fake):
    fake.script(chat_text("through xhr"))
    reply = sdk(fake.url, urllib_send)([{"role": "user", "content": "hi"}], [])
    assert reply == {
        "role": "assistant",
        "content": "through xhr",  # a gzip header from the browser is ignored
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }  # for budget.py
    headers = fake.posts()[0].headers
    assert headers["authorization"] == "Bearer sk-js-0123456789abcdef"
    assert not [h for h in headers if h.startswith("x-stainless-")]  # fewer headers for CORS preflights


@pytest.mark.parametrize(
    "fault, says",
    [
        (
            ConnectionError(BLOCKED),
            "from this page (tried 3 times): the endpoint did not allow requests from this page (CORS)",
        ),
        (TimeoutError("no answer within 5 s"), "no reply from"),
    ],
)
def test_browser_failures_read_like_the_lean_adapter(fake, fault, says):
    calls = []

    def send(*args):
        calls.append(args)
        raise fault

    with pytest.raises(ModelError) as caught:
        sdk(fake.url, send)([{"role": "user", "content": "hi"}], [])
    assert says in str(caught.value) and len(calls) == 3
