"""The key written out of what Python reads (web/src/shared/keymask.js, run in Node.js): every
answer's headers and body, and a body read piece by piece with the key split between pieces."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from conftest import node_module

KEY = "sk-e2e-secret-4242"
MASK = "[redacted]"

mask_js = node_module("tests/site/keymask_driver.mjs")

TEXT = st.lists(
    st.one_of(
        st.just(KEY), st.sampled_from(["sk-", "sk-e2e", KEY[:-1], "4242", "x", "\n\n", "é"]), st.text(max_size=8)
    ),
    max_size=12,
).map("".join)


def test_the_key_in_text_and_bytes_is_masked_and_nothing_else_changes(mask_js):
    assert mask_js.call("maskText", f"a {KEY} b {KEY}", KEY, MASK) == f"a {MASK} b {MASK}"
    assert mask_js.call("maskText", "no key here", KEY, MASK) == "no key here"
    assert mask_js.call("maskText", "abc abc", "abc", MASK) == "abc abc"  # a key shorter than 4: left alone
    body = f'{{"error": "bad key {KEY}"}}'.encode()
    assert bytes(mask_js.call("whole", list(body), KEY, MASK)) == body.replace(KEY.encode(), MASK.encode())


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(text=TEXT, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6))
@example(text=f"data: {KEY}\n\n", cuts=[9, 14])
@example(text=f"xx{KEY[:5]}", cuts=[4])
def test_a_body_read_piece_by_piece_never_hands_on_the_key_and_loses_nothing(mask_js, text, cuts):
    data = text.encode()
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [list(data[a:b]) for a, b in zip([0, *points], [*points, len(data)])]
    out = [bytes(piece) for piece in mask_js.call("pieces", chunks, KEY, MASK)]
    # the whole body, the key masked: also where a key was split between two pieces
    assert b"".join(out) == data.replace(KEY.encode(), MASK.encode())
    assert not any(KEY.encode() in piece for piece in out)
