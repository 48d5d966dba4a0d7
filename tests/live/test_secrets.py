"""The API key never shows: not in exceptions, events, printed traces or captured output — for every adapter."""

import json
import traceback

import pytest
from live_adapters import ADAPTERS, build
from live_adapters import KEY
from fakeserver import error

from looplab import Memory, Toolbox, run_agent
from looplab.models.errors import ModelError
from looplab.trace import Collector, fan_out, printer

LEAKS = [
    error(401, f"Incorrect API key provided: {KEY}."),
    error(400, f"bad request from key {KEY}"),
    {"status": 500, "body": f"Traceback ... Authorization: Bearer {KEY}", "headers": {"retry-after-ms": "1"}},
    {"body": f"<html>your key {KEY}</html>"},
]


@pytest.mark.parametrize("kind", ADAPTERS)
@pytest.mark.parametrize("leak", LEAKS, ids=["401", "400", "500", "html"])
def test_key_echoed_by_the_server_is_redacted(fake, capsys, kind, leak, monkeypatch):
    monkeypatch.delenv("LLM_API_KEY", raising=False)  # redaction must not rely on the environment
    fake.script(leak, leak, leak)
    events = Collector()
    result = run_agent("hi", build(kind, fake.url, key=KEY), Toolbox(), Memory("s"), tracer=fan_out(events, printer()))
    assert result["stopped"] == "error"
    seen = json.dumps(result) + json.dumps(events.events) + "".join(capsys.readouterr())
    assert KEY not in seen and KEY[10:] not in seen
    assert fake.posts()[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent, to the server only


@pytest.mark.parametrize("kind", ADAPTERS)
def test_exception_text_and_repr_hold_no_key(fake, kind):
    fake.script(*[error(401, f"key {KEY} refused")] * 3)
    with pytest.raises(ModelError) as caught:
        build(kind, fake.url, key=KEY)([{"role": "user", "content": "x"}], [])
    assert KEY not in str(caught.value) and KEY not in repr(caught.value) and KEY not in repr(caught.value.args)
    printed = "".join(traceback.format_exception(caught.value))  # what a traceback would show, chain included
    assert KEY not in printed and "ModelError: 401 from" in printed
