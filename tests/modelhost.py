"""A model host on 127.0.0.1 for the tests: serves a model catalog and GGUF files as a model host
does (CORS, HTTP Range), and can misbehave on purpose.

    with ModelHost({"smol.gguf": path}) as host:
        host.catalog(models)            # the catalog it serves at host.url + "models.json"
        host.cut_after["smol.gguf"] = 45_000_000   # the next whole-file answer stops there
        host.url, host.requests         # [(path, range header or None, bytes sent)]

A file the host does not have is a 404. The file bytes come from disk; no model is fetched from
anywhere else.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from fakeserver import QuietServer

import sys

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
from looplab._course.mirror import byte_range


class ModelHost:
    def __init__(self, files: dict[str, Path], rate: float | None = None):
        self.files = files
        self.rate = rate  # bytes per second (None: as fast as it goes), so progress can be watched
        self.cut_after: dict[str, int] = {}
        self.requests: list[tuple[str, str | None, int]] = []
        self.catalog_text = "{}"
        self.lock = threading.Lock()
        self.httpd = QuietServer(("127.0.0.1", 0), self.handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def catalog(self, models: list[dict], default: str | None = None) -> str:
        """Serve this catalog (format 1) at models.json; returns its address."""
        self.catalog_text = json.dumps({"format": 1, "mirror": None, "default": default, "models": models})
        return self.url + "models.json"

    def sent(self, name: str) -> list[tuple[str | None, int]]:
        """(range header, bytes sent) of each request for a file."""
        with self.lock:
            return [(r, n) for path, r, n in self.requests if path == "/files/" + name]

    def handler(self):
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def cors(self):
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "Range")
                self.send_header("Access-Control-Expose-Headers", "Content-Range, Content-Length, Accept-Ranges")
                self.send_header("Cross-Origin-Resource-Policy", "cross-origin")

            def do_OPTIONS(self):
                self.send_response(204)
                self.cors()
                self.send_header("Access-Control-Allow-Methods", "GET, HEAD")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                path = self.path.split("?")[0]
                if path == "/models.json":
                    data = host.catalog_text.encode()
                    self.send_response(200)
                    self.cors()
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                name = path.removeprefix("/files/")
                file = host.files.get(name) if path.startswith("/files/") else None
                asked = self.headers.get("Range")
                if file is None:
                    with host.lock:
                        host.requests.append((path, asked, 0))
                    self.send_response(404, "Not Found")
                    self.cors()
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                size = file.stat().st_size
                wanted = byte_range(asked, size)
                first, last = wanted if isinstance(wanted, tuple) else (0, size - 1)
                self.send_response(206 if isinstance(wanted, tuple) else 200)
                self.cors()
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(last - first + 1))
                if isinstance(wanted, tuple):
                    self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
                self.end_headers()
                with host.lock:
                    cut = host.cut_after.pop(name, None)
                sent = 0
                limit = last - first + 1 if cut is None else min(last - first + 1, cut)
                started = time.monotonic()
                try:
                    with file.open("rb") as source:
                        source.seek(first)
                        while sent < limit:
                            chunk = source.read(min(1 << 20, limit - sent))
                            if not chunk:
                                break
                            self.wfile.write(chunk)
                            sent += len(chunk)
                            if host.rate:
                                time.sleep(max(0.0, sent / host.rate - (time.monotonic() - started)))
                except (BrokenPipeError, ConnectionResetError):
                    pass
                with host.lock:
                    host.requests.append((path, asked, sent))
                if sent < last - first + 1:
                    self.close_connection = True  # the cut: the client sees the body end early

        return Handler

    def __enter__(self) -> ModelHost:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
