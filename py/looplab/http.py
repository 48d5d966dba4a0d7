"""The one transport seam: HTTP requests with JSON bodies, by urllib in CPython and by XHR in the browser.

    status, headers, text = post_json(url, {"model": "m"}, {"Authorization": "Bearer ..."}, timeout=60)
    status, headers, pieces = open_stream("POST", url, data, headers, timeout=60)   # a body read as it comes

Any HTTP status comes back as it is (a 401 is an answer, not an exception); only a request that
got no complete answer raises `NetworkError`, whose `kind` says what happened:

    timeout   no answer within the timeout
    refused   nothing listens at that host and port
    dns       the host name could not be found
    dropped   the connection closed before the reply was complete
    blocked   (browser) the request failed with no status: the network, or the endpoint's CORS rules
    other     anything else (the text says what)

In the browser, Python runs in a Web Worker and the request is a synchronous XMLHttpRequest, or in
Loop Lab's page a fetch that Python waits for (JavaScript Promise integration), so the lessons'
loop stays plain synchronous code. Workers may set a timeout on a synchronous XHR;
a page (window) may not, so there the timeout is skipped. In Loop Lab's page the worker sends
it (`looplab_transport`, web/src/worker/transport.js): Python never holds the learner's key, and the
worker sets the Authorization header of requests for the configured endpoint only.
"""

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager

IN_BROWSER = sys.platform == "emscripten"
STOPPED = "stopped"  # what the page's waits answer when Stop was pressed (web/src/shared/stop.js STOPPED)


class NetworkError(Exception):
    """A request that got no complete HTTP answer; `kind` is timeout, refused, dns, dropped, blocked,
    withheld (the page did not send it with the key, and `detail` says why) or other."""

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
    """One HTTP request through whichever transport this Python has: in the page, its fetch where
    Python can wait for one (a request with the key then never follows a redirect), else an XHR."""
    if IN_BROWSER:
        streamed = _page_stream(method, url, data, headers, timeout)
        if streamed is not None:
            status, found, pieces = streamed
            return status, found, b"".join(pieces).decode("utf-8", errors="replace")
        return _xhr(method, url, data, headers, timeout)
    return _urllib(method, url, data, headers, timeout)


def open_stream(
    method: str, url: str, data: str | None, headers: dict, timeout: float
) -> tuple[int, dict, Iterator[bytes]]:
    """A request whose body is read as it arrives: (status, lower-case headers, pieces of bytes).

    In CPython each piece is what the socket had (`timeout` is then the longest wait between two
    pieces: a server that stops sending raises NetworkError "timeout" from the iterator, one that
    hangs up mid-body "dropped"). In Loop Lab's page, with JavaScript Promise integration, each
    piece is what the worker's fetch read (`_page_stream`); elsewhere in a browser a synchronous
    XHR cannot hand over a body before it is whole, so the body comes as one piece.
    """
    if IN_BROWSER:
        streamed = _page_stream(method, url, data, headers, timeout)
        if streamed is not None:
            return streamed
        status, found, text = _xhr(method, url, data, headers, timeout)
        return status, found, iter([text.encode("utf-8")])
    with network_errors(url, timeout):
        response = _open(method, url, data, headers, timeout)
    return response.status, {k.lower(): v for k, v in response.headers.items()}, _pieces(response, url, timeout)


def _pieces(response, url: str, timeout: float) -> Iterator[bytes]:
    """A urllib response's body, piece by piece as the socket delivers it; closed at the end."""
    with response:
        while True:
            with network_errors(url, timeout, during="nothing arrived for"):
                piece = response.read1(65536)
            if not piece:
                return
            yield piece


def _open(method, url, data, headers, timeout):
    """urllib's response for a request (a 4xx/5xx too), without following redirects."""
    import urllib.error
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        """A redirect comes back as the answer: urllib would turn the POST into a GET, losing the body."""

        def redirect_request(self, *args, **kwargs):
            return None

    req = urllib.request.Request(
        url, data=None if data is None else data.encode("utf-8"), headers=headers, method=method
    )
    try:
        return urllib.request.build_opener(NoRedirect).open(req, timeout=timeout)
    except urllib.error.HTTPError as answer:  # a 4xx/5xx is still an answer: read it
        return answer


def _urllib(method, url, data, headers, timeout):
    with network_errors(url, timeout):
        with _open(method, url, data, headers, timeout) as response:
            text = response.read().decode("utf-8", errors="replace")
            return response.status, {k.lower(): v for k, v in response.headers.items()}, text


@contextmanager
def network_errors(url: str, timeout: float, during: str = "no answer within"):
    """Turn what urllib and sockets raise into NetworkError with its kind."""
    import http.client
    import socket
    import urllib.error

    try:
        yield
    except TimeoutError as exc:
        raise NetworkError("timeout", url, f"{during} {timeout:g} s") from exc
    except (
        http.client.IncompleteRead,
        http.client.RemoteDisconnected,
        ConnectionResetError,
        ConnectionAbortedError,
        BrokenPipeError,
    ) as exc:
        raise NetworkError("dropped", url, type(exc).__name__) from exc
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise NetworkError("timeout", url, f"{during} {timeout:g} s") from exc
        if isinstance(reason, ConnectionRefusedError):
            raise NetworkError("refused", url, "connection refused") from exc
        if isinstance(reason, socket.gaierror):
            raise NetworkError("dns", url, str(reason)) from exc
        if isinstance(reason, (ConnectionResetError, ConnectionAbortedError)):
            raise NetworkError("dropped", url, type(reason).__name__) from exc
        raise NetworkError("other", url, str(reason)) from exc
    except (ValueError, http.client.HTTPException, OSError) as exc:
        raise NetworkError("other", url, f"{type(exc).__name__}: {exc}") from exc


# Why the page's transport sent no request with the key (web/src/worker/transport.js `send`).
REFUSALS = {
    "redirected": "the endpoint answered with a redirect, and a request with your key never follows one",
    "fetch only": "a request with your key goes by fetch here, which this call cannot wait for",
    "cannot wait": (
        "a request with your key is made by the page while Python waits, and here Python cannot wait for the page"
        " (the page is not cross-origin isolated, or this browser gives it no SharedArrayBuffer). Live mode works"
        " in Chromium and Firefox 153+ on any host, and in Safari and older Firefox on a cross-origin isolated"
        " page: `make serve`, or a static host once its page has reloaded itself"
    ),
    "unanswered": "the page made the request with your key but could not hand Python its answer (over 750 KB?)",
    "refused": "the page refused to make this request with your key (only a live run's requests to your endpoint get it)",
}

# Headers a browser sets itself; setting them from script only logs a warning, so skip them.
BROWSER_OWNED = {"content-length", "host", "connection", "accept-encoding", "user-agent", "origin"}


def _xhr(method, url, data, headers, timeout):
    """Through the page's worker when it offers its transport, else a plain XHR (e.g. Pyodide in Node)."""
    try:
        from looplab_transport import send  # registered by web/src/worker/worker.js
    except ImportError:
        return _plain_xhr(method, url, data, headers, timeout)
    reply = send(method, url, json.dumps(headers), data, int(timeout * 1000))
    error = getattr(reply, "error", None)
    if error == "timeout":
        raise NetworkError("timeout", url, f"no answer within {timeout:g} s")
    if error in REFUSALS:  # the page kept the key back: saying why, not retried
        raise NetworkError("withheld", url, REFUSALS[error])
    if error:
        raise NetworkError("blocked", url, "the request failed with no HTTP status")
    text = reply.body.to_bytes().decode("utf-8", errors="replace")
    return int(reply.status), _parse_headers(str(reply.headers or "")), text


def _page_stream(method, url, data, headers, timeout):
    """The page worker's fetch, read piece by piece (web/src/worker/transport.js `open_stream`):
    Python waits for each piece with pyodide.ffi.run_sync, suspended while the network delivers.
    None when that cannot be: no such worker, or no stack switching (JSPI) in this browser or this
    call — the caller then reads the body whole. Stop, pressed while Python waits, is raised as
    KeyboardInterrupt (the worker took it from the interrupt buffer)."""
    try:
        from looplab_transport import close_stream, open_stream, read_stream, waited  # web/src/worker/worker.js
        from pyodide.ffi import can_run_sync, run_sync
    except ImportError:
        return None
    if not can_run_sync():
        return None

    def wait(promise):
        try:
            return run_sync(promise)
        finally:
            waited()  # Stop is heard again (the worker hushes it while Python waits: transport.js)

    reply = wait(open_stream(method, url, json.dumps(headers), data, int(timeout * 1000)))
    _fail_if(
        getattr(reply, "error", None),
        url,
        f"no answer within {timeout:g} s",
        "blocked",
        "the request failed with no HTTP status",
    )
    handle = int(reply.stream)

    def pieces() -> Iterator[bytes]:
        try:
            while True:
                got = wait(read_stream(handle))
                _fail_if(
                    getattr(got, "error", None),
                    url,
                    f"nothing arrived for {timeout:g} s",
                    "dropped",
                    "the connection failed in the middle of the reply",
                )
                if getattr(got, "done", False):
                    return
                yield got.chunk.to_bytes()
        finally:
            close_stream(handle)

    return int(reply.status), _parse_headers(str(reply.headers or "")), pieces()


def _fail_if(error, url: str, waited: str, kind: str, detail: str) -> None:
    """What the page's stream functions answered instead of a reply, raised: Stop (pressed while
    Python waited) as KeyboardInterrupt, a timeout, any other failure as NetworkError `kind`."""
    if error == STOPPED:
        raise KeyboardInterrupt("stopped")
    if error == "timeout":
        raise NetworkError("timeout", url, waited)
    if error:
        raise NetworkError(kind, url, detail)


def _plain_xhr(method, url, data, headers, timeout):
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
