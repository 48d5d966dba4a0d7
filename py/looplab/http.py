"""The one transport seam: HTTP requests with JSON bodies, by urllib in CPython and by XHR in the browser.

    status, headers, text = post_json(url, {"model": "m"}, {"Authorization": "Bearer ..."}, timeout=60)

Any HTTP status comes back as it is (a 401 is an answer, not an exception); only a request that
got no complete answer raises `NetworkError`, whose `kind` says what happened:

    timeout   no answer within the timeout
    refused   nothing listens at that host and port
    dns       the host name could not be found
    dropped   the connection closed before the reply was complete
    blocked   (browser) the request failed with no status: the network, or the endpoint's CORS rules
    other     anything else (the text says what)

In the browser, Python runs in a Web Worker and the request is a synchronous XMLHttpRequest, so
the lessons' loop stays plain synchronous code. Workers may set a timeout on a synchronous XHR;
a page (window) may not, so there the timeout is skipped.
"""

import json
import sys

IN_BROWSER = sys.platform == "emscripten"


class NetworkError(Exception):
    """A request that got no complete HTTP answer; `kind` is timeout, refused, dns, dropped, blocked or other."""

    def __init__(self, kind: str, url: str, detail: str = ""):
        super().__init__(f"{kind}: {url}" + (f" ({detail})" if detail else ""))
        self.kind, self.url, self.detail = kind, url, detail


def post_json(url: str, body, headers: dict | None = None, timeout: float = 60.0) -> tuple[int, dict, str]:
    """POST `body` as JSON; returns (status, lower-case headers, body text) or raises NetworkError."""
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return request("POST", url, json.dumps(body), all_headers, timeout)


def get_json(url: str, headers: dict | None = None, timeout: float = 60.0) -> tuple[int, dict, str]:
    """GET a URL; returns (status, lower-case headers, body text) or raises NetworkError."""
    return request("GET", url, None, headers or {}, timeout)


def request(method: str, url: str, data: str | None, headers: dict, timeout: float) -> tuple[int, dict, str]:
    """One HTTP request through whichever transport this Python has."""
    if IN_BROWSER:
        return _xhr(method, url, data, headers, timeout)
    return _urllib(method, url, data, headers, timeout)


def _urllib(method, url, data, headers, timeout):
    import http.client
    import socket
    import urllib.error
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        """A redirect comes back as the answer: urllib would turn the POST into a GET, losing the body."""

        def redirect_request(self, *args, **kwargs):
            return None

    req = urllib.request.Request(url, data=None if data is None else data.encode("utf-8"),
                                 headers=headers, method=method)
    try:
        try:
            response = urllib.request.build_opener(NoRedirect).open(req, timeout=timeout)
        except urllib.error.HTTPError as answer:  # a 4xx/5xx is still an answer: read it
            response = answer
        with response:
            text = response.read().decode("utf-8", errors="replace")
            return response.status, {k.lower(): v for k, v in response.headers.items()}, text
    except TimeoutError as exc:
        raise NetworkError("timeout", url, f"no answer within {timeout:g} s") from exc
    except (http.client.IncompleteRead, http.client.RemoteDisconnected, ConnectionResetError,
            ConnectionAbortedError, BrokenPipeError) as exc:
        raise NetworkError("dropped", url, type(exc).__name__) from exc
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise NetworkError("timeout", url, f"no answer within {timeout:g} s") from exc
        if isinstance(reason, ConnectionRefusedError):
            raise NetworkError("refused", url, "connection refused") from exc
        if isinstance(reason, socket.gaierror):
            raise NetworkError("dns", url, str(reason)) from exc
        if isinstance(reason, (ConnectionResetError, ConnectionAbortedError)):
            raise NetworkError("dropped", url, type(reason).__name__) from exc
        raise NetworkError("other", url, str(reason)) from exc
    except (ValueError, http.client.HTTPException, OSError) as exc:
        raise NetworkError("other", url, f"{type(exc).__name__}: {exc}") from exc


# Headers a browser sets itself; setting them from script only logs a warning, so skip them.
BROWSER_OWNED = {"content-length", "host", "connection", "accept-encoding", "user-agent", "origin"}


def _xhr(method, url, data, headers, timeout):
    from js import XMLHttpRequest  # the browser's; only importable inside Pyodide

    xhr = XMLHttpRequest.new()
    xhr.open(method, url, False)
    try:
        xhr.timeout = int(timeout * 1000)  # allowed in a worker; a window throws InvalidAccessError
    except Exception:
        pass
    for name, value in headers.items():
        if name.lower() not in BROWSER_OWNED:
            xhr.setRequestHeader(name, value)
    try:
        xhr.send(data)
    except Exception as exc:  # a JsException wrapping a DOMException: TimeoutError or NetworkError
        name = getattr(exc, "name", "") or str(exc)
        if "Timeout" in name:
            raise NetworkError("timeout", url, f"no answer within {timeout:g} s") from None
        raise NetworkError("blocked", url, "the request failed with no HTTP status") from None
    if xhr.status == 0:
        raise NetworkError("blocked", url, "the request failed with no HTTP status")
    return int(xhr.status), _parse_headers(str(xhr.getAllResponseHeaders() or "")), str(xhr.responseText or "")


def _parse_headers(raw: str) -> dict:
    """XHR's `getAllResponseHeaders()` text as a dict with lower-case names."""
    out = {}
    for line in raw.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            out[name.strip().lower()] = value.strip()
    return out
