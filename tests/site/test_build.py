"""The site build's wheel handling: one reproducible wheel writer (scripts/wheelfile.py) and the
wheels' requirements read for the site's Pyodide with PEP 508 markers evaluated by `packaging`."""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site
from wheelfile import sha256_file, write_wheel

PYODIDE = {"python": "3.14.2", "platform": "emscripten_5_0_3", "arch": "wasm32"}


def wheel(dest: Path, requires: list[str], name: str = "demo") -> Path:
    return write_wheel(
        dest,
        name,
        "1.0",
        {f"{name}/__init__.py": b"X = 1\n", f"{name}/sub/m.py": b""},
        summary="a demo",
        requires_python=">=3.12",
        generator="test",
        requires=requires,
    )


def test_a_written_wheel_is_reproducible_and_its_record_is_right(tmp_path):
    first, second = wheel(tmp_path / "a", ["httpx2"]), wheel(tmp_path / "b", ["httpx2"])
    assert first.name == "demo-1.0-py3-none-any.whl"
    assert (
        first.read_bytes() == second.read_bytes()
        and sha256_file(first) == hashlib.sha256(first.read_bytes()).hexdigest()
    )
    with zipfile.ZipFile(first) as zf:
        names = zf.namelist()
        assert names == [
            "demo/__init__.py",
            "demo/sub/m.py",
            "demo-1.0.dist-info/METADATA",
            "demo-1.0.dist-info/WHEEL",
            "demo-1.0.dist-info/RECORD",
        ]
        assert "Requires-Dist: httpx2\n" in zf.read("demo-1.0.dist-info/METADATA").decode()
        for line in zf.read("demo-1.0.dist-info/RECORD").decode().splitlines()[:-1]:
            arcname, digest, size = line.split(",")
            data = zf.read(arcname)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
    assert build_site.wheel_imports(first) == ["demo"]


def test_requirements_apply_as_their_markers_say_on_the_sites_pyodide(tmp_path):
    path = wheel(
        tmp_path,
        [
            "anyio>=3; sys_platform != 'emscripten'",
            'httpx2_jsfetch; sys_platform == "emscripten"',
            "typing_extensions>=4.11; python_version < '3.13'",
            "Pydantic-Core==2.50.5; python_version >= '3.14' and platform_machine == 'wasm32'",
            "socksio; extra == 'socks'",
            "idna (>=2.8)",
            "jiter; platform_system == 'Emscripten' or os_name == 'nt'",
            "sniffio; python_full_version ~= '3.14.0' and platform_release >= '5'",
        ],
    )
    environment = build_site.target(PYODIDE)
    assert environment["python_version"] == "3.14" and environment["platform_release"] == "5.0.3"
    assert build_site.wheel_requires(path, environment) == [
        "httpx2-jsfetch",
        "pydantic-core",
        "idna",
        "jiter",
        "sniffio",
    ]
    older = build_site.target({**PYODIDE, "python": "3.12.7"})
    assert build_site.wheel_requires(path, older) == ["httpx2-jsfetch", "typing-extensions", "idna", "jiter"]


def test_a_requirement_the_build_cannot_read_is_a_clear_error(tmp_path):
    environment = build_site.target(PYODIDE)
    for bad in ("demo2; sys_platform === 'emscripten'", "demo2; sys_platform =! 'emscripten'", "demo2; color == 'red'"):
        path = wheel(tmp_path / str(len(bad)), [bad])
        with pytest.raises(build_site.BuildError) as error:
            build_site.wheel_requires(path, environment)
        assert str(error.value).startswith(f"demo-1.0-py3-none-any.whl: cannot read {'Requires-Dist: ' + bad!r}: ")


def test_each_lesson_is_in_its_chapter_and_fixtures_in_none():
    chapters = {
        n: (build_site.chapter_of(n) or {}).get("number")
        for n in ("01", "01b", "14b", "16", "17", "24", "25", "27", "90")
    }
    assert chapters == {"01": 1, "01b": 1, "14b": 1, "16": 1, "17": 2, "24": 2, "25": 3, "27": 3, "90": None}
    assert build_site.chapter_of("17")["title"].startswith("Chapter 2")


def test_a_lesson_title_loses_its_number_letter_and_all():
    from looplab._course.lessonfile import Cell, title

    titles = [
        title([Cell("markdown", f"# {head}\n\nText.")], "slug")
        for head in ("1b · Workflows first", "4 · The loop", "Lesson 14b: Streaming", "No number")
    ]
    assert titles == ["Workflows first", "The loop", "Streaming", "No number"]
