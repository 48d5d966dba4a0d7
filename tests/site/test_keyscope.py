"""Which requests carry the learner's key (web/src/shared/keyscope.js, run in Node.js): only those
for the configured base URL's origin and path prefix; and the worker's policy names that origin
and nothing else (looplab/_course/serve.py, web/sw.js)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from hypothesis import given, settings, strategies as st

from conftest import node_module
from looplab._course import serve

ROOT = Path(__file__).resolve().parents[2]
BASE = "https://api.example.com:8443/v1"


scope_js = node_module("web/src/shared/keyscope.js")


def test_the_key_goes_to_the_base_url_and_below_it(scope_js):
    for url in (
        BASE,
        BASE + "/",
        BASE + "/chat/completions",
        BASE + "/responses?x=1",
        "https://API.Example.com:8443/v1/models",
        "https://api.example.com:8443/v1/a/../models",
    ):
        assert scope_js.call("carriesKey", BASE, url) is True, url
    assert (
        scope_js.call("keyedURL", scope_js.call("parseEndpoint", BASE), "https://API.example.com:8443/v1/x/../m")
        == "https://api.example.com:8443/v1/m"
    )  # what is sent is the URL as checked, written out


def test_look_alikes_other_ports_schemes_and_paths_get_no_key(scope_js):
    for url in (
        "https://api.example.com.evil.test:8443/v1/chat/completions",  # a look-alike host
        "https://evil.test/https://api.example.com:8443/v1",
        "https://api.example.com:8443@evil.test/v1/models",  # user info: another host
        "https://user@api.example.com:8443/v1/models",
        "https://api.example.com/v1/models",  # another port (443)
        "https://api.example.com:8444/v1/models",
        "http://api.example.com:8443/v1/models",  # http, not https
        "wss://api.example.com:8443/v1/models",
        "https://api.example.com:8443/v10/models",  # a path outside the prefix
        "https://api.example.com:8443/v1/../admin",
        "https://api.example.com:8443/",
        "https://api.example.com:8443/v",
        "/v1/models",
        "",
        "not a url",
    ):
        assert scope_js.call("carriesKey", BASE, url) is False, url
    assert scope_js.call("carriesKey", "ftp://api.example.com/v1", "ftp://api.example.com/v1/x") is False
    assert scope_js.call("endpointOrigin", "http://127.0.0.1:11434/v1/") == "http://127.0.0.1:11434"
    assert scope_js.call("endpointOrigin", "javascript:alert(1)") == ""
    assert scope_js.get("KEY_PLACEHOLDER") == "held by the page"


def test_paths_a_decoding_server_would_read_outside_the_prefix_get_no_key(scope_js):
    origin = "https://api.example.com:8443"
    for path in (
        "/v1/..%2Fadmin",
        "/v1/..%2fadmin",
        "/v1/%2e%2e%2fadmin",
        "/v1/%2E%2E%2Fadmin",
        "/v1/..%5Cadmin",
        "/v1/..%5cadmin",
        "/v1/..;/admin",
        "/v1/x;p=1/models",
        "/v1/..%252Fadmin",  # decoded twice
        "/v1/chat%2Fcompletions",
        "/v1/%2e%2e%5cadmin",
    ):
        assert scope_js.call("carriesKey", BASE, origin + path) is False, path
    # URL parsing itself removes a whole dot segment, encoded or not: what is left is inside or not
    assert scope_js.call("carriesKey", BASE, origin + "/v1/x/%2e%2e/models") is True
    assert scope_js.call("carriesKey", BASE, origin + "/v1/%2e%2e/admin") is False
    # only the path counts: a query may hold anything
    assert scope_js.call("carriesKey", BASE, origin + "/v1/models?next=..%2F..%2F;x") is True


def test_a_base_url_at_the_root_covers_its_whole_origin_only(scope_js):
    root = "http://localhost:11434"
    assert scope_js.call("carriesKey", root, "http://localhost:11434/api/chat") is True
    assert scope_js.call("carriesKey", root + "/", "http://localhost:11434/") is True
    assert scope_js.call("carriesKey", root, "http://127.0.0.1:11434/api/chat") is False  # another host name
    assert scope_js.call("carriesKey", root, "http://localhost:11435/") is False


# Half the URLs on the base URL's own origin (written in several ways), half on others near it.
ORIGINS = st.one_of(
    st.sampled_from(["https://api.example.com:8443", "https://API.EXAMPLE.COM:8443"]),
    st.sampled_from(
        [
            "https://api.example.com",
            "http://api.example.com:8443",
            "https://example.com:8443",
            "https://api.example.com.evil.test:8443",
            "https://api.example.com:443",
        ]
    ),
)
FIRST = st.sampled_from(["v1", "v10", "v1x", "", "V1", "%2e%2e", ".", "%2E%2E"])
SEGMENTS = st.lists(
    st.sampled_from(
        [
            "v1",
            "v10",
            "chat",
            "completions",
            "..",
            ".",
            "",
            "%2e%2e",
            "v1x",
            "..%2f",
            "..%2F",
            "a;b",
            "..;",
            "%5c",
            "x%252f",
            "x%2e",
            ".%2E",
            "%2e",
        ]
    ),
    max_size=4,
)
UNSAFE = ("%2f", "%5c", "%2e", "%25", ";")  # what a server that decodes paths could read as another path


def reference(base: str, url: str) -> bool:
    """The rule written again with Python's own URL parsing and dot-segment removal."""
    b, u = urlsplit(base), urlsplit(url)

    def origin(p):
        port = p.port or {"http": 80, "https": 443}[p.scheme]
        return (p.scheme, (p.hostname or "").lower(), port)

    def clean(path):  # the URL standard's dot segments: ".", "..", and the same with "." as %2e
        out = []
        for part in path.split("/")[1:]:
            if part.lower() in ("..", ".%2e", "%2e.", "%2e%2e"):
                out = out[:-1]
            elif part.lower() not in (".", "%2e"):
                out.append(part)
        return "/" + "/".join(out)

    prefix = clean(b.path).rstrip("/")
    path = clean(u.path).rstrip("/")
    plain = not any(bad in path.lower() for bad in UNSAFE)
    return origin(b) == origin(u) and plain and (prefix == "" or path == prefix or path.startswith(prefix + "/"))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(origin=ORIGINS, first=FIRST, segments=SEGMENTS)
def test_the_page_and_a_reference_agree_on_every_url(scope_js, origin, first, segments):
    url = f"{origin}/" + "/".join([first, *segments])
    assert scope_js.call("carriesKey", BASE, url) is reference(BASE, url), url


def test_the_worker_policy_names_an_endpoint_origin_and_nothing_else():
    policy = "default-src 'self'; worker-src 'none'; connect-src 'self'"
    assert (
        serve.worker_policy(policy, "/worker.js?connect=http%3A%2F%2F127.0.0.1%3A8101")
        == policy + " http://127.0.0.1:8101"
    )
    assert (
        serve.worker_policy(policy, "/worker.js?connect=https://api.openai.com") == policy + " https://api.openai.com"
    )
    for bad in (
        "http://a.test; script-src *",
        "http://a.test, connect-src *",
        "http://a.test/path",
        "*",
        "https:",
        "javascript:1",
        "http://a test",
        "'unsafe-eval'",
        "",
    ):
        assert (
            serve.worker_policy(policy, "/worker.js?connect=" + bad.replace(";", "%3B").replace(" ", "%20")) == policy
        ), bad
    # web/sw.js checks the same shape of origin as serve.py
    sw = (ROOT / "web" / "sw.js").read_text()
    pattern = re.search(r"const ORIGIN = /\^(.+)\$/i;", sw)[1].replace("\\/", "/")
    assert pattern == serve.ORIGIN.pattern
