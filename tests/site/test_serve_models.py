"""`looplab serve --models DIR`: a mirror folder of local models beside the site (looplab/_course/serve.py
and mirror.py). The catalog goes out pointing at the mirror, a model file whole or by byte range (a
download resumes), a missing one is a 404, and nothing outside the folder is reachable."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from hypothesis import example, given, strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "py"))
from browser import SiteServer

from looplab._course import mirror

CATALOG = json.loads((ROOT / "web" / "models.json").read_text())


def site_with_catalog(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>t</title>")
    (site / "build.json").write_text(json.dumps({"modelCatalog": "models.json", "immutable": []}))
    shutil.copy2(ROOT / "web" / "models.json", site / "models.json")
    return site


def get(url: str, headers: dict | None = None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_the_mirror_serves_the_catalog_pointing_at_it_and_files_by_range(tmp_path):
    site, folder = site_with_catalog(tmp_path), tmp_path / "mirror"
    folder.mkdir()
    body = bytes(range(256)) * 40  # 10240 bytes standing in for a model file
    name = CATALOG["models"][0]["file"]
    (folder / name).write_bytes(body)
    (tmp_path / "secret.txt").write_text("outside the mirror")
    server = SiteServer(site, models=folder)
    try:
        status, _, data = get(server.url + "models.json")
        served = json.loads(data)
        assert status == 200 and served["mirror"] == "models/"
        assert served["models"] == CATALOG["models"]  # only the mirror changes

        status, headers, data = get(server.url + "models/" + name)
        assert (status, data, headers["Accept-Ranges"]) == (200, body, "bytes")

        status, headers, data = get(server.url + "models/" + name, {"Range": "bytes=4000-"})
        assert (status, data) == (206, body[4000:])
        assert headers["Content-Range"] == f"bytes 4000-10239/{len(body)}"

        status, headers, data = get(server.url + "models/" + name, {"Range": "bytes=10-19"})
        assert (status, data, headers["Content-Length"]) == (206, body[10:20], "10")

        status, headers, _ = get(server.url + "models/" + name, {"Range": "bytes=10240-"})
        assert (status, headers["Content-Range"]) == (416, "bytes */10240")

        for path in ("models/" + CATALOG["models"][1]["file"], "models/..%2Fsecret.txt", "models/../secret.txt"):
            status, _, data = get(server.url + path)
            assert status == 404 and b"outside the mirror" not in data, path
    finally:
        server.stop()


def test_serve_says_which_catalog_models_the_folder_lacks(tmp_path):
    site, folder = site_with_catalog(tmp_path), tmp_path / "mirror"
    folder.mkdir()
    first, second = CATALOG["models"][:2]
    (folder / first["file"]).write_bytes(b"GGUF")  # the wrong size
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from looplab._course import serve, mirror; "
         "import json, pathlib; site = pathlib.Path(sys.argv[1]); "
         "print('\\n'.join(serve.serve_models(pathlib.Path(sys.argv[2]), site, json.loads((site / 'build.json').read_text()))))",
         str(site), str(folder)],
        capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "py")}, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[0] == f"models from {folder} under /models/"
    assert f"{first['file']} in {folder} is 4 bytes; the catalog says {first['size']}" in lines[1]
    assert any(f"{second['file']} ({second['id']}) is not in {folder}" in line for line in lines)


def test_serve_refuses_a_missing_mirror_folder_with_a_sentence(tmp_path):
    site = site_with_catalog(tmp_path)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "serve.py"), "--dir", str(site), "--models", str(tmp_path / "nope")],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 1
    assert f"--models {tmp_path / 'nope'}: no such folder" in done.stderr


@given(size=st.integers(0, 5000), first=st.integers(0, 6000) | st.none(), last=st.integers(0, 6000) | st.none())
@example(size=100, first=None, last=0)  # bytes=-0
@example(size=100, first=100, last=None)  # the first byte past the end
def test_a_range_is_inside_the_file_or_refused_or_ignored(size, first, last):
    header = f"bytes={'' if first is None else first}-{'' if last is None else last}"
    got = mirror.byte_range(header, size)
    if got is None:  # the whole file is sent
        assert first is None and last is None or (first is not None and last is not None and last < first)
    elif got == "unsatisfiable":
        assert size == 0 or (first is not None and first >= size) or (first is None and last == 0)
    else:
        start, end = got
        assert 0 <= start <= end < size
        if first is not None:
            assert start == first and end == min(last if last is not None else size - 1, size - 1)
        else:
            assert end == size - 1 and end - start + 1 == min(last, size)


def test_ranges_the_server_does_not_do_are_answered_with_the_whole_file():
    assert mirror.byte_range(None, 10) is None
    assert mirror.byte_range("bytes=0-1,4-5", 10) is None  # several ranges
    assert mirror.byte_range("items=0-1", 10) is None
    assert mirror.byte_range("bytes=5-", 10) == (5, 9)
