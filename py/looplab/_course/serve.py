"""Serve the built site on 127.0.0.1 with the headers it needs: `looplab serve`, `make serve`.

    looplab serve [--port 8000] [--dir web/dist] [--quiet] [--models DIR]   # the site that came with looplab
    python scripts/serve.py [--port 8000] [--dir web/dist]     # a checkout's web/dist

CPython only: a socket server, never imported by the rest of looplab (nor in the page's snapshot,
scripts/snapshot.py). The site is the wheel's copy (looplab/_site, put there by scripts/dist.py),
else a source checkout's web/dist.

- COOP `same-origin` + COEP `require-corp` on every response (but sw.js, see below): the page is
  cross-origin isolated, so SharedArrayBuffer exists and Stop can interrupt Python through
  Pyodide's interrupt buffer. A live endpoint still works: its requests are CORS requests.
- `application/wasm` for .wasm (streaming compilation), `text/javascript` for .mjs.
- Cache headers: what build.json lists as `immutable` (files named by their bytes, folders with
  the version in their path: scripts/immutable.py) never changes (immutable, one year); everything
  else is revalidated on each visit (no-cache + Last-Modified), the service worker does the rest.
- The Python worker's Content-Security-Policy (build.json's `workerCsp`) as a header on the worker
  script (build.json's `worker`):
  a <meta> policy does not reach a worker. Its `connect-src` is the site plus the live endpoint's
  origin that the page names in the script's address (`worker.js?connect=<origin>`,
  `worker_policy`); the page starts a new worker when the endpoint changes.

- `--models DIR`: a mirror folder of local models (mirror.py): DIR's files under `models/`, with
  HTTP Range (a download resumes where it stopped), and the catalog (build.json's `modelCatalog`)
  sent with `"mirror": "models/"`, so the page downloads every model from this host.

Any static host serves the folder just as well, with these headers or without them: then the
service worker adds COOP/COEP and the worker's policy from the second load on (web/sw.js).
"""

import argparse
import functools
import http.server
import json
import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from . import mirror

PACKAGED_SITE = Path(__file__).resolve().parents[1] / "_site"
CHECKOUT_SITE = Path(__file__).resolve().parents[3] / "web" / "dist"


def default_site() -> Path:
    """The site that came with looplab (the wheel's copy), else a source checkout's web/dist."""
    return PACKAGED_SITE if (PACKAGED_SITE / "index.html").exists() else CHECKOUT_SITE


TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".py": "text/x-python; charset=utf-8",
    ".svg": "image/svg+xml",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".map": "application/json",
}


# An origin and nothing else: no path, no spaces, no ";" or "," that could add to the policy.
ORIGIN = re.compile(r"https?://(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?", re.IGNORECASE)


def worker_policy(policy: str, path: str) -> str:
    """The worker's policy for a request of `path`: its `?connect=` origin appended to the
    policy's last directive (connect-src) when it is an http(s) origin, else the policy as it is.
    The same rule as web/sw.js's workerPolicy."""
    wanted = parse_qs(urlsplit(path).query).get("connect", [""])[0]
    return f"{policy} {wanted}" if ORIGIN.fullmatch(wanted) else policy


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the page's many requests share connections
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}
    quiet = False
    worker_policy = ""  # build.json's workerCsp
    worker_script = "/worker.js"  # build.json's worker
    immutable: tuple[str, ...] = ("pyodide/",)  # build.json's immutable: files, and folders ending in "/"
    models: Path | None = None  # --models: the mirror folder
    catalog = "/models.json"  # build.json's modelCatalog, as a path

    def do_GET(self) -> None:
        if not self.send_mirror():
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self.send_mirror():
            super().do_HEAD()

    def send_mirror(self) -> bool:
        """Answer a request for the catalog or a mirrored model (True), or leave it to the site (False)."""
        if self.models is None:
            return False
        path = urlsplit(self.path).path
        if path == self.catalog:
            site_catalog = Path(self.directory) / path.lstrip("/")
            if not site_catalog.is_file():
                return False
            self.send_bytes(mirror.mirrored(site_catalog.read_text()), "application/json")
            return True
        if not path.startswith("/" + mirror.PREFIX):
            return False
        found = mirror.mirror_file(self.models, path)
        if found is None:
            self.send_error(404, f"no such model file in the mirror folder ({self.models.name})")
            return True
        self.send_model(found)
        return True

    def send_bytes(self, data: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_model(self, path: Path) -> None:
        """A model file, whole or the byte range asked for (206), never read into memory at once."""
        size = path.stat().st_size
        wanted = mirror.byte_range(self.headers.get("Range"), size)
        if wanted == "unsatisfiable":
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        first, last = wanted or (0, size - 1)
        self.send_response(206 if wanted else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(last - first + 1))
        if wanted:
            self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
        self.end_headers()
        if self.command == "HEAD":
            return
        with path.open("rb") as source:
            source.seek(first)
            left = last - first + 1
            while left > 0:
                chunk = source.read(min(left, 1 << 20))
                if not chunk:
                    break
                try:
                    self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the page paused or cancelled: it asks for the rest later
                left -= len(chunk)

    def end_headers(self) -> None:
        path = self.path.split("?")[0]
        if self.worker_policy and path == self.worker_script:
            self.send_header("Content-Security-Policy", worker_policy(self.worker_policy, self.path))
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        if self.path.split("?")[0] != "/sw.js":
            # Not on the service worker: its only cross-origin request is Test connection's no-cors
            # probe ("does anything answer there?"), which COEP would block.
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Content-Type-Options", "nosniff")
        if forever(path, self.immutable):
            self.send_header("Cache-Control", "public, max-age=31536000, immutable")
        else:
            self.send_header("Cache-Control", "no-cache")
        if self.path.split("?")[0] == "/sw.js":
            self.send_header("Service-Worker-Allowed", "/")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def forever(path: str, immutable: tuple[str, ...]) -> bool:
    """Whether a served path (no query) is immutable: one of the files, or in one of the folders."""
    path = path.lstrip("/")
    return any(path == entry or (entry.endswith("/") and path.startswith(entry)) for entry in immutable)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve_models(folder: Path, site: Path, info: dict) -> list[str] | None:
    """Set the handler up to serve `folder` as the mirror: the lines to print (what it lacks), or
    None when it cannot be served (said on stderr)."""
    if not folder.is_dir():
        print(f"serve: --models {folder}: no such folder", file=sys.stderr)
        return None
    address = info.get("modelCatalog", "models.json")
    catalog = site / address
    if "://" in address or not catalog.is_file():
        print(
            f"serve: --models needs the site's own catalog, and {site}'s build.json names {address!r}",
            file=sys.stderr,
        )
        return None
    SiteHandler.models = folder.resolve()
    SiteHandler.catalog = "/" + address.lstrip("/")
    lacking = mirror.missing(folder, catalog.read_text())
    return [f"models from {folder} under /{mirror.PREFIX}"] + [
        f"{line}: that model cannot be downloaded from this host" for line in lacking
    ]


def main(argv: list[str] | None = None, prog: str | None = None, site: Path | None = None) -> int:
    """Serve until Ctrl+C; 1 when the folder holds no built site. `site`: the folder when --dir is not given."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument(
        "--dir", type=Path, default=None, help="the built site (default: the one that came with looplab)"
    )
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    parser.add_argument(
        "--models", type=Path, default=None, metavar="DIR", help="serve DIR as the local models' mirror folder"
    )
    args = parser.parse_args(argv)
    args.dir = args.dir or site or default_site()
    if not (args.dir / "index.html").exists():
        print(
            f"serve: {args.dir} has no index.html: no site came with this looplab; in a checkout, "
            "`make build` builds it",
            file=sys.stderr,
        )
        return 1
    handler = functools.partial(SiteHandler, directory=str(args.dir))
    SiteHandler.quiet = args.quiet
    build = args.dir / "build.json"
    info = json.loads(build.read_text()) if build.exists() else {}
    SiteHandler.worker_policy = info.get("workerCsp", "")
    SiteHandler.worker_script = "/" + info.get("worker", "worker.js")
    SiteHandler.immutable = tuple(info.get("immutable", SiteHandler.immutable))
    said = [] if args.models is None else serve_models(args.models, args.dir, info)
    if said is None:
        return 1
    with Server((args.host, args.port), handler) as server:
        host, port = server.server_address[:2]
        print(f"serving {args.dir} on http://{host}:{port}/ (Ctrl+C stops)", flush=True)
        for line in said:
            print(f"serve: {line}", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0
