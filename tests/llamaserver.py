"""A real OpenAI-compatible model server for tests and benchmarks: llama.cpp's llama-server on 127.0.0.1.

scripts/llama.py builds the server and extracts the model (`make llama`); this module starts
and stops it, and can put a recording proxy in front of it that keeps, for every reply, the
tokens the server says it wrote (`usage.completion_tokens`), whether the limit cut it, the tools
the request offered and the message the model wrote (bench/local_agent.py counts its calls).

    with LlamaServer(key="sk-...") as server:      # free port, --jinja, waits for /health
        server.url                                 # http://127.0.0.1:<port>/v1
        with Recorder(server) as proxy:            # the same API on another port, recorded
            proxy.url, proxy.replies

The server is stopped on exit whatever happened: the context manager terminates it (then kills
it), and Linux ends it if the process that started it dies first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import llama  # scripts/llama.py: where the server and the model are
from fakeserver import QuietServer  # no traceback when a client that timed out hangs up

from looplab.models.errors import ModelError
from looplab.models.responses_stream import ResponsesStream
from looplab.models.stream import ChatStream

MODEL_NAME = "smollm2-135m-instruct"  # the name the server answers to (--alias)


class LlamaServer:
    """llama-server with the pinned GGUF, --jinja (the model's own chat template and tool-call parsing)."""

    def __init__(self, key: str | None = None, log: Path | None = None, context: int = 8192, model: Path | None = None):
        self.key, self.context, self.model = key, context, model
        self.log = log or ROOT / ".cache" / "llama" / "server.log"
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, wait: float = 120.0) -> LlamaServer:
        binary, model = llama.server_path(), self.model or llama.model_path()
        for path, how in ((binary, "built"), (model, "extracted")):
            if not path.exists():
                raise RuntimeError(f"{path} is not {how} yet: run `make llama` (scripts/llama.py ready)")
        self.port = free_port()
        command = [
            str(binary),
            "-m",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--jinja",
            "--alias",
            MODEL_NAME,
            "-c",
            str(self.context),
            "-np",
            "1",
            # One thread: on a busy 2-core machine two threads spin-waiting on each other
            # wrote 2.5 tokens/s where one thread wrote 48 (measured; LLAMA_THREADS changes it).
            "-t",
            os.environ.get("LLAMA_THREADS", "1"),
            "--temp",
            "0",
            "--seed",
            "1",
        ]  # greedy: the same prompt gets the same reply
        if self.key:
            command += ["--api-key", self.key]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        out = self.log.open("w")
        # In our process group, so a Ctrl-C reaches the server too; and told to end when we end,
        # so not even a killed test run leaves it behind.
        self.process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=end_with_parent
        )
        out.close()
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama-server was not ready within {wait:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """Terminate the server, then kill it if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "".join(self.log.read_text(errors="replace").splitlines(True)[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def end_with_parent() -> None:
    """In the child, before exec: ask Linux to send it SIGTERM when its parent dies (PR_SET_PDEATHSIG)."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the context manager's stop() is still there


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def assembled(path: str, data: bytes) -> dict | None:
    """A streamed reply's body as the whole reply it spells (None when the stream was broken)."""
    reader = ResponsesStream() if path.rstrip("/").endswith("/responses") else ChatStream()
    try:
        reader.feed(data)
        return reader.finish()
    except ModelError:
        return None


class Recorder:
    """A pass-through proxy in front of a server that records each reply's tokens and finish reason,
    what its request offered (`tools`, `response_format`) and the message the model wrote."""

    def __init__(self, server: LlamaServer):
        self.target = f"http://127.0.0.1:{server.port}"
        self.replies: list[dict] = []  # {"path", "tokens", "finish", "chars", "generate_ms", ...}
        self.lock = threading.Lock()
        self.httpd = QuietServer(("127.0.0.1", 0), self.handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def take(self) -> list[dict]:
        """The replies recorded since the last take."""
        with self.lock:
            taken, self.replies = self.replies, []
        return taken

    def handler(self):
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self.forward(None)

            def do_POST(self):
                self.forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def forward(self, body: bytes | None) -> None:
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type", "accept")
                }
                request = urllib.request.Request(
                    recorder.target + self.path, data=body, headers=headers, method=self.command
                )
                try:
                    with urllib.request.urlopen(request, timeout=600) as reply:
                        status, data, kind = reply.status, reply.read(), reply.headers.get("Content-Type", "")
                except urllib.error.HTTPError as error:
                    status, data, kind = error.code, error.read(), error.headers.get("Content-Type", "")
                recorder.note(self.path, status, data, body)
                self.send_response(status)
                self.send_header("Content-Type", kind or "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def note(self, path: str, status: int, data: bytes, body: bytes | None = None) -> None:
        if status != 200 or not path.rstrip("/").endswith(("/chat/completions", "/responses")):
            return
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            request = {}
        offered = {
            key: request[key] for key in ("tools", "response_format") if isinstance(request, dict) and key in request
        }
        try:
            reply, streamed = json.loads(data), False
        except ValueError:  # a streamed reply: its events, assembled by looplab's own readers
            reply, streamed = assembled(path, data), True
            if reply is None:
                return
        usage = reply.get("usage") or {}
        tokens = usage.get("completion_tokens", usage.get("output_tokens"))
        choice = (reply.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        text = (message.get("content") or "") + "".join(
            (c.get("function") or {}).get("arguments") or "" for c in message.get("tool_calls") or []
        )
        with self.lock:
            self.replies.append(
                {
                    "path": path,
                    "tokens": tokens,
                    "finish": choice.get("finish_reason"),
                    "tool_calls": len(message.get("tool_calls") or []),
                    "chars": len(text),
                    "streamed": streamed,
                    # the server's own time writing the reply (not streamed replies only)
                    "generate_ms": (reply.get("timings") or {}).get("predicted_ms"),
                    "offered": offered,  # the request's tools and response_format, as sent
                    "message": {"content": message.get("content"), "tool_calls": message.get("tool_calls") or []},
                }
            )

    def __enter__(self) -> Recorder:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
