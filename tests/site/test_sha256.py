"""The page's SHA-256 over a stream of chunks (web/src/page/model/sha256.js, in Node.js), against
Python's hashlib: the same digest whatever the bytes and wherever the chunks split them."""

from __future__ import annotations

import hashlib

from conftest import node_module
from hypothesis import example, given, settings, strategies as st

sha256_js = node_module("web/src/page/model/sha256.js")


@settings(max_examples=60, deadline=None)
@given(chunks=st.lists(st.binary(max_size=200), max_size=6))
@example(chunks=[])
@example(chunks=[b"abc"])
@example(chunks=[b"a" * 55, b"", b"b"])  # the padding that needs a second block
@example(chunks=[b"x" * 63, b"y" * 65])
def test_the_digest_is_hashlibs_whatever_the_chunks(sha256_js, chunks):
    expected = hashlib.sha256(b"".join(chunks)).hexdigest()
    assert sha256_js.call("sha256Hex", [list(c) for c in chunks]) == expected


def test_known_digests(sha256_js):
    assert sha256_js.call("sha256Hex", []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert sha256_js.call("sha256Hex", [list(b"abc")]) == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
