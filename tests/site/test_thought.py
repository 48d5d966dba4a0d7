"""A reasoning model's thinking is the reply's thought, never its answer (web/src/page/model/thought.js, in Node.js).

Qwen3 writes <think>…</think> before its answer unless its chat template is told
enable_thinking: false (the local engine does); what is left of it in a reply's text is moved out
here, for every shape a small model can leave it in.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from conftest import node_module


thought_js = node_module("web/src/page/model/thought.js")


def test_a_think_block_is_the_thought_and_the_rest_the_answer(thought_js):
    split = thought_js.call("splitThought", "<think>\nThe user wants 10 + 5, which is 15.\n</think>\n\n15")
    assert split == {"thought": "The user wants 10 + 5, which is 15.", "answer": "15"}
    # Qwen3 with thinking turned off still writes an empty block: no thought, the answer only
    assert thought_js.call("splitThought", "<think>\n\n</think>\n\nHello!") == {"thought": "", "answer": "Hello!"}


def test_a_reply_cut_while_thinking_has_no_answer_and_a_block_opened_by_the_template_is_closed(thought_js):
    assert thought_js.call("splitThought", "<think>Let me count: one, two") == {
        "thought": "Let me count: one, two",
        "answer": "",
    }
    # the template put <think> in the prompt, so the reply starts inside the thought
    assert thought_js.call("splitThought", 'I should call add.</think>{"type": "final_answer"}') == {
        "thought": "I should call add.",
        "answer": '{"type": "final_answer"}',
    }


def test_text_without_thinking_is_left_as_it_is(thought_js):
    assert thought_js.call("splitThought", "  plain  ") == {"thought": "", "answer": "  plain  "}
    assert thought_js.call("splitThought", None) == {"thought": "", "answer": ""}


def test_the_message_keeps_tool_calls_and_takes_the_engine_s_reasoning_as_thought(thought_js):
    call = {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
    out = thought_js.call(
        "withoutThought", {"role": "assistant", "content": "<think>add them</think>", "tool_calls": [call]}
    )
    assert out == {"role": "assistant", "content": None, "tool_calls": [call], "thought": "add them"}
    out = thought_js.call("withoutThought", {"role": "assistant", "content": "15"}, "10 plus 5 is 15")
    assert out == {"role": "assistant", "content": "15", "thought": "10 plus 5 is 15"}
    assert "thought" not in thought_js.call("withoutThought", {"role": "assistant", "content": "15"}, "")


# What JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator): not quite
# Python's str.strip, which also takes \x1c-\x1f and \x85 and leaves \ufeff.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_trim(text: str) -> str:
    return text.strip(JS_SPACE)


words = st.text(alphabet=st.characters(blacklist_characters="<>", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(thinking=st.lists(words, max_size=3), answer=words, between=st.lists(words, max_size=3))
def test_no_think_tag_ever_reaches_the_answer_and_no_answer_text_is_lost(thought_js, thinking, answer, between):
    # blocks of thinking interleaved with pieces of answer, as a model might write them
    pieces = [f"<think>{t}</think>{b}" for t, b in zip(thinking, between + [""] * len(thinking))]
    text = "".join(pieces) + answer
    split = thought_js.call("splitThought", text)
    assert "<think>" not in split["answer"] and "</think>" not in split["answer"]
    kept = "".join(between[: len(thinking)]) + answer
    assert split["answer"] == (js_trim(kept) if thinking else text)
    for t in thinking:
        assert js_trim(t) in split["thought"]
