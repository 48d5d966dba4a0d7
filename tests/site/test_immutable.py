"""Content-named files (scripts/immutable.py) and the cache headers looplab/_course/serve.py sends for them:
what build.json lists as immutable is cached for a year, everything else is revalidated, and the
worker's policy goes with the worker script build.json names."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import urllib.request
from pathlib import Path

from hypothesis import given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import immutable
from browser import SiteServer

FOREVER = "public, max-age=31536000, immutable"


def test_a_content_name_carries_the_bytes_hash_and_its_source_map_follows(tmp_path):
    body = b"self.onmessage = () => 1;\n//# sourceMappingURL=worker.js.map\n"
    (tmp_path / "worker.js").write_bytes(body)
    (tmp_path / "worker.js.map").write_text('{"version": 3}')
    name = immutable.content_name(tmp_path, "worker.js")
    digest = hashlib.sha256(body).hexdigest()[:12]
    assert name == f"worker-{digest}.js"
    assert not (tmp_path / "worker.js").exists() and not (tmp_path / "worker.js.map").exists()
    assert (tmp_path / f"{name}.map").read_text() == '{"version": 3}'
    assert (tmp_path / name).read_bytes().endswith(f"//# sourceMappingURL={name}.map\n".encode())


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=1, max_size=64), st.binary(min_size=1, max_size=64))
def test_two_contents_get_two_names_and_the_same_content_the_same_name(first, second):
    names = []
    for data in (first, second, first):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "py").mkdir()
            (Path(tmp) / "py" / "snapshot.bin.gz").write_bytes(data)
            name = immutable.content_name(Path(tmp), "py/snapshot.bin.gz")
            assert name.startswith("py/snapshot-") and name.endswith(".bin.gz"), name
            assert (Path(tmp) / name).read_bytes() == data
            names.append(name)
    assert names[0] == names[2]
    assert (names[0] == names[1]) == (first == second)


def test_headers_file_lists_files_and_folders(tmp_path):
    immutable.write_headers(tmp_path, ["pyodide/1.0/", "py/lock-abc.json"])
    assert (tmp_path / "_headers").read_text() == (
        f"/pyodide/1.0/*\n  Cache-Control: {FOREVER}\n/py/lock-abc.json\n  Cache-Control: {FOREVER}\n"
    )


def headers(url: str) -> dict:
    with urllib.request.urlopen(url) as response:
        return {k.lower(): v for k, v in response.headers.items()}


def test_serve_sends_immutable_only_for_what_build_json_lists(tmp_path):
    site = tmp_path / "site"
    (site / "py").mkdir(parents=True)
    (site / "pyodide" / "1.0").mkdir(parents=True)
    for path in (
        "index.html",
        "app.js",
        "worker-0123456789ab.js",
        "worker.js",
        "py/snapshot-0123456789ab.bin.gz",
        "py/looplab-0.1.0-py3-none-any.whl",
        "pyodide/1.0/pyodide.mjs",
    ):
        (site / path).write_text("x")
    (site / "build.json").write_text(
        json.dumps(
            {
                "workerCsp": "default-src 'self'; connect-src 'self'",
                "worker": "worker-0123456789ab.js",
                "immutable": ["pyodide/1.0/", "worker-0123456789ab.js", "py/snapshot-0123456789ab.bin.gz"],
            }
        )
    )
    server = SiteServer(site)
    try:
        for path in ("pyodide/1.0/pyodide.mjs", "worker-0123456789ab.js", "py/snapshot-0123456789ab.bin.gz"):
            assert headers(server.url + path)["cache-control"] == FOREVER, path
        for path in ("", "app.js", "build.json", "worker.js", "py/looplab-0.1.0-py3-none-any.whl"):
            assert headers(server.url + path)["cache-control"] == "no-cache", path
        worker = headers(server.url + "worker-0123456789ab.js?connect=https%3A%2F%2Fapi.example.com")
        assert worker["content-security-policy"] == "default-src 'self'; connect-src 'self' https://api.example.com"
        assert "content-security-policy" not in headers(server.url + "worker.js")  # not the build's worker
    finally:
        server.stop()
