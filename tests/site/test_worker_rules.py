"""The worker's output rule, run in Node.js: Python's output goes to the page at once, batched only
when a print loop floods it (web/src/worker/output.js); nothing is lost or reordered. (Stop's rule,
which the page, the worker and looplab share, is tests/site/test_page_rules.py's.)"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from conftest import node_module

output_js = node_module("web/src/worker/output.js")


def feed(js, writes: list[tuple[str, str, float]]) -> tuple[list[list[str]], dict]:
    """Each write ([stream, text, ms]) through `written`, then a flush: what was sent, in order."""
    batch, sent = js.call("empty"), []
    for stream, text, now in writes:
        batch, out = js.call("written", batch, stream, text, now)
        sent += out
    batch, out = js.call("flushed", batch)
    return sent + out, batch


def test_a_line_goes_at_once_and_a_flood_is_gathered(output_js):
    per = output_js.get("PER_WINDOW")
    sent, _ = feed(output_js, [("stdout", f"{i}\n", 100 + i * 0.1) for i in range(per + 30)])
    assert sent[:per] == [["stdout", f"{i}\n"] for i in range(per)]  # the first ones, one message each
    assert sent[per:] == [["stdout", "".join(f"{i}\n" for i in range(per, per + 30))]]  # the rest together
    # a new window: a line goes at once again
    window = output_js.get("WINDOW_MS")
    writes = [("stdout", "a\n", 100 + i * 0.1) for i in range(per + 5)] + [("stderr", "late\n", 100 + window + 1)]
    sent, _ = feed(output_js, writes)
    assert sent[-1] == ["stderr", "late\n"] and sent[-2] == ["stdout", "a\n" * 5]


def test_gathered_text_goes_before_it_grows_past_the_most(output_js):
    per, most = output_js.get("PER_WINDOW"), output_js.get("MOST")
    writes = [("stdout", "x", 10.0)] * per + [("stdout", "y" * (most // 2), 10.0)] * 3
    batch, sent = output_js.call("empty"), []
    for stream, text, now in writes:
        batch, out = output_js.call("written", batch, stream, text, now)
        sent += out
    # two halves wait (the window is full); the third passes the most, and all three go together
    assert [len(text) for _, text in sent] == [1] * per + [most // 2 * 3]
    assert batch["stdout"] == "" and "".join(text for _, text in sent) == "x" * per + "y" * (most // 2 * 3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["stdout", "stderr"]), st.text(max_size=30), st.floats(0, 400)), max_size=60))
def test_nothing_written_is_lost_reordered_or_mixed_up(output_js, writes):
    writes = sorted(writes, key=lambda w: w[2])  # time runs forward
    sent, batch = feed(output_js, writes)
    for stream in ("stdout", "stderr"):
        assert "".join(t for s, t in sent if s == stream) == "".join(t for s, t, _ in writes if s == stream)
    assert batch["stdout"] == batch["stderr"] == "" and all(text for _, text in sent)
