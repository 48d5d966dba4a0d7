"""httpx2 transports for the browser (Pyodide): httpx2 imports this module on Emscripten.

The `httpx2-jsfetch` on PyPI is an empty placeholder, so Loop Lab builds its own from this
source (py-extra/build.py) and serves the wheel with the site. The sync transport sends each
request as a synchronous XMLHttpRequest — allowed in a Web Worker, where the lessons run — so
the openai SDK's synchronous client works unchanged. The async one uses `pyodide.http.pyfetch`.

A page may offer its own transport as the JS module `looplab_transport` (Loop Lab's worker does:
web/src/worker/transport.js, which holds the API key and adds it only to requests for the configured
endpoint); then every request goes through it, else through XMLHttpRequest and fetch directly.
When that module reads bodies as they arrive (`open_stream`, `read_stream`, `close_stream`) and
Python may wait on a Promise (`pyodide.ffi.can_run_sync()`: JavaScript Promise integration), the
sync transport's response body is read piece by piece — a streamed reply (`stream=True`) reaches
the SDK's SSE reader as the network delivers it, and Stop, pressed while Python waits, raises
KeyboardInterrupt. Otherwise the body comes whole, from the synchronous XHR.

A request that fails with no HTTP status (the network, or the endpoint's CORS rules) raises
ConnectError whose text starts with "blocked"; a timeout raises ReadTimeout.
"""

import json

# Only httpx2's submodules: this module is imported while `httpx2` itself is still being imported.
from httpx2._exceptions import ConnectError, ReadError, ReadTimeout
from httpx2._models import Request, Response
from httpx2._transports.base import AsyncBaseTransport, BaseTransport
from httpx2._types import SyncByteStream

__version__ = "0.1.0"
__all__ = ["JavascriptFetchTransport", "AsyncJavascriptFetchTransport"]

# Set by the browser itself; setting them from script only logs a warning.
BROWSER_OWNED = {"content-length", "host", "connection", "accept-encoding", "user-agent", "origin"}
# Already undone by the browser: passing them on would make httpx2 decode the body twice.
ALREADY_DECODED = {"content-encoding", "content-length", "transfer-encoding"}
BLOCKED = "blocked: the request failed with no HTTP status (the network, or the endpoint's CORS rules)"
DROPPED = "dropped: the connection failed in the middle of the reply"


def wire_headers(request: Request) -> dict:
    """The headers to send from a page: without browser-owned ones and the SDK's x-stainless-* telemetry
    (fewer custom headers, fewer CORS preflight refusals)."""
    return {
        k: v
        for k, v in request.headers.items()
        if k.lower() not in BROWSER_OWNED and not k.lower().startswith("x-stainless-")
    }


def read_timeout(request: Request) -> float | None:
    timeout = request.extensions.get("timeout") or {}
    values = [v for v in (timeout.get("read"), timeout.get("connect")) if v]
    return max(values) if values else None


def header_pairs(raw: str) -> list[tuple[str, str]]:
    """XHR's `getAllResponseHeaders()` text as (name, value) pairs."""
    pairs = []
    for line in raw.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            pairs.append((name.strip(), value.strip()))
    return pairs


def page_transport():
    """The page's `looplab_transport` module (send, send_async), or None when the page has none."""
    try:
        import looplab_transport
    except ImportError:
        return None
    return looplab_transport


def page_reply(reply, timeout: float | None):
    """The page transport's answer as (status, pairs, bytes); raises TimeoutError or ConnectionError."""
    error = getattr(reply, "error", None)
    if error == "timeout":
        raise TimeoutError(f"no answer within {timeout} s")
    if error:
        raise ConnectionError(BLOCKED)
    return int(reply.status), header_pairs(str(reply.headers or "")), reply.body.to_bytes()


def xhr_send(method: str, url: str, headers: dict, body: bytes, timeout: float | None):
    """One synchronous XMLHttpRequest: (status, [(name, value)], body bytes); raises TimeoutError or ConnectionError."""
    from js import Uint8Array, XMLHttpRequest
    from pyodide.ffi import to_js

    page = page_transport()
    if page is not None:
        reply = page.send(
            method, url, json.dumps(headers), to_js(body) if body else None, int(timeout * 1000) if timeout else 0
        )
        return page_reply(reply, timeout)

    xhr = XMLHttpRequest.new()
    xhr.open(method, url, False)
    binary = True
    try:
        xhr.responseType = "arraybuffer"  # a worker may; a window may not, for a sync request
        if timeout:
            xhr.timeout = int(timeout * 1000)
    except Exception:
        binary = False
    for name, value in headers.items():
        xhr.setRequestHeader(name, value)
    try:
        xhr.send(to_js(body) if body else None)
    except Exception as exc:
        if "Timeout" in (getattr(exc, "name", "") or str(exc)):
            raise TimeoutError(f"no answer within {timeout} s") from None
        raise ConnectionError(BLOCKED) from None
    if xhr.status == 0:
        raise ConnectionError(BLOCKED)
    data = Uint8Array.new(xhr.response).to_bytes() if binary else str(xhr.responseText or "").encode()
    return int(xhr.status), header_pairs(str(xhr.getAllResponseHeaders() or "")), data


def page_stream(page, request: Request, headers: dict, body: bytes, timeout: float | None) -> Response | None:
    """The page transport's fetch for `request`, its body read as it arrives (`PageBody`); None when
    the page cannot do that here (no `open_stream`, or no JavaScript Promise integration on this
    call's stack) — the caller then sends it as a synchronous XHR."""
    try:
        from pyodide.ffi import can_run_sync, run_sync, to_js
    except ImportError:
        return None
    if not hasattr(page, "open_stream") or not can_run_sync():
        return None
    wait = heard(page, run_sync)
    reply = wait(
        page.open_stream(
            request.method,
            str(request.url),
            json.dumps(headers),
            to_js(body) if body else None,
            int(timeout * 1000) if timeout else 0,
        )
    )
    error = getattr(reply, "error", None)
    if error == "stopped":
        raise KeyboardInterrupt("stopped")
    if error == "timeout":
        raise ReadTimeout(f"no answer within {timeout} s", request=request)
    if error:
        raise ConnectError(BLOCKED, request=request)
    kept = [(k, v) for k, v in header_pairs(str(reply.headers or "")) if k.lower() not in ALREADY_DECODED]
    stream = PageBody(page, int(reply.stream), request, timeout, wait)
    return Response(int(reply.status), headers=kept, stream=stream, request=request)


def heard(page, run_sync):
    """run_sync for the page's stream Promises, telling the page when Python is back (`waited`): the
    page's worker does not let Pyodide look at Stop while Python waits (transport.js), so that no
    KeyboardInterrupt is raised, and lost, inside Pyodide's own resolvers of the wait."""
    back = getattr(page, "waited", None)

    def wait(promise):
        try:
            return run_sync(promise)
        finally:
            if back is not None:
                back()

    return wait


class PageBody(SyncByteStream):
    """A response body the page's fetch reads: each piece as it arrives, through `wait(read_stream(...))`
    (`heard`'s run_sync)."""

    def __init__(self, page, handle: int, request: Request, timeout: float | None, wait):
        self.page, self.handle, self.request, self.timeout, self.wait = page, handle, request, timeout, wait

    def __iter__(self):
        try:
            while True:
                got = self.wait(self.page.read_stream(self.handle))
                error = getattr(got, "error", None)
                if error == "stopped":
                    raise KeyboardInterrupt("stopped")
                if error == "timeout":
                    raise ReadTimeout(f"nothing arrived for {self.timeout} s", request=self.request)
                if error:
                    raise ReadError(DROPPED, request=self.request)
                if getattr(got, "done", False):
                    return
                yield got.chunk.to_bytes()
        finally:
            self.close()

    def close(self) -> None:
        if self.handle is not None:
            self.page.close_stream(self.handle)  # aborts the request when it is still going
            self.handle = None


def response_of(request: Request, call) -> Response:
    """httpx2's Response for what `call()` got, (status, pairs, bytes); its failures as httpx2's errors."""
    try:
        status, headers, data = call()
    except TimeoutError as exc:
        raise ReadTimeout(str(exc), request=request) from None
    except ConnectionError as exc:
        raise ConnectError(str(exc), request=request) from None
    kept = [(k, v) for k, v in headers if k.lower() not in ALREADY_DECODED]
    return Response(status, headers=kept, content=data, request=request)


class JavascriptFetchTransport(BaseTransport):
    """httpx2's sync transport on Emscripten; `send` can be replaced (tests run it in CPython)."""

    def __init__(self, *args, send=None, **kwargs):  # httpx2 passes verify/cert/...: meaningless here
        self.send = send or xhr_send

    def handle_request(self, request: Request) -> Response:
        body = request.read()
        page = page_transport() if self.send is xhr_send else None  # (a `send` given: tests in CPython)
        if page is not None:
            streamed = page_stream(page, request, wire_headers(request), body, read_timeout(request))
            if streamed is not None:
                return streamed
        return response_of(
            request,
            lambda: self.send(request.method, str(request.url), wire_headers(request), body, read_timeout(request)),
        )


class AsyncJavascriptFetchTransport(AsyncBaseTransport):
    """httpx2's async transport on Emscripten, over the browser's fetch."""

    def __init__(self, *args, **kwargs):
        pass

    async def handle_async_request(self, request: Request) -> Response:
        from pyodide.http import pyfetch

        body = await request.aread()
        page = page_transport()
        if page is not None:
            from pyodide.ffi import to_js

            timeout = read_timeout(request)
            answer = await page.send_async(
                request.method,
                str(request.url),
                json.dumps(wire_headers(request)),
                to_js(body) if body else None,
                int(timeout * 1000) if timeout else 0,
            )
            return response_of(request, lambda: page_reply(answer, timeout))
        try:
            reply = await pyfetch(
                str(request.url), method=request.method, headers=wire_headers(request), body=body or None
            )
        except Exception:
            raise ConnectError(BLOCKED, request=request) from None
        kept = [(k, v) for k, v in reply.headers.items() if k.lower() not in ALREADY_DECODED]
        return Response(reply.status, headers=kept, content=await reply.bytes(), request=request)
