"""The lesson format's version: looplab._course.course.LESSON_FORMAT, written by the build into
lessons/index.json, and the page's own number (web/src/page/lesson/lessonformat.js), which refuses another."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import node_module

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
from looplab._course.course import LESSON_FORMAT


lessonformat_js = node_module("web/src/page/lesson/lessonformat.js")


def test_the_page_reads_the_format_looplab_writes_and_refuses_another(lessonformat_js):
    assert lessonformat_js.call("readIndex", {"format": LESSON_FORMAT, "lessons": [{"slug": "01-a"}]}) == [
        {"slug": "01-a"}
    ]
    with pytest.raises(
        RuntimeError, match=f"lesson format {LESSON_FORMAT + 1}, and this page reads format {LESSON_FORMAT}"
    ):
        lessonformat_js.call("readIndex", {"format": LESSON_FORMAT + 1, "lessons": []})
    with pytest.raises(RuntimeError, match=r"lesson format \(none given\)"):
        lessonformat_js.call("readIndex", {"lessons": []})
