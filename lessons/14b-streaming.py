# ---
# jupyter:
#   looplab:
#     deepens: "01"
#     adds: a reply shown as it is written, tool calls assembled from their pieces
# ---

# %% [markdown]
# # 14b · Streaming: the reply as it is written
#
# A model writes its reply a token at a time. Unstreamed, the server keeps the tokens until the
# reply is whole, and the learner watches nothing for seconds. Streamed (`"stream": true` in the
# request), it sends each piece the moment it has it, and the first words are on the screen in a
# fraction of a second. Every chat product works this way.
#
# The pieces come as **server-sent events**: text lines, `data: ` and a JSON object, a blank line
# after each event, and `data: [DONE]` at the end. Each object is a *chunk*; its
# `choices[0].delta` holds only what is new:
#
# - `content`: the next bit of text;
# - `tool_calls`: pieces of calls, each with an `index` saying which call it belongs to. A call's
#   first piece brings its `id` and `function.name`; the later ones only more `arguments` text.
#   Two calls made in parallel may arrive interleaved: a piece of one, then of the other;
# - `finish_reason` in the last chunk, and, when the request asked for
#   `stream_options: {"include_usage": true}`, one more chunk with no choices and the `usage`.
#
# Put back together, the pieces must give exactly the message an unstreamed call returns: the
# loop never sees a piece. This is where hand-written agents break, so you write the reader.

# %%
import json
from looplab import expect
from looplab.models.chat import read_chat_reply
from looplab.models.stream import ChatStream

def attempt(fn, *args):
    """Call fn; an exception comes back as the value, so one mistake does not stop the lesson."""
    try:
        return fn(*args)
    except Exception as exc:
        return exc

# %% [markdown]
# ## Four recorded streams
#
# Three from Loop Lab's fake OpenAI-compatible server (`tests/fakeserver.py`), exactly as
# the network handed them over: each item is one piece of bytes as it arrived. `two_calls` asks
# for `add` and `upper` at once, their pieces interleaved; `multibyte` is text cut into 97-byte
# pieces, two of which end in the middle of a character (`ö` is two bytes in UTF-8, `😀` four);
# `cut_short` stopped in the middle of a call. All have empty deltas (`"delta": {}`), and the
# whole ones end with a usage-only chunk.
#
# The fourth, `llama_server`, is a real server: llama.cpp's `llama-server` running the small
# SmolLM2-135M model, asked "What is 10 plus 5?" with an `add` tool it chose not to use
# (`scripts/record_stream.py` records it again). One token a chunk, a `"content": null` to
# start, fields the fake server never sends (`timings`, `system_fingerprint`), and sometimes two
# events in one piece. Your reader must not care.

# %%
STREAMS = {
    'two_calls': [
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_add", "type": "function", "function": {"name": "add", "arguments": ""}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_up", "type": "function", "function": {"name": "upper", "arguments": ""}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\\"a\\":"}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "function": {"arguments": "{\\"tex"}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": " 10, "}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "function": {"arguments": "t\\": \\""}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\\"b\\": "}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "function": {"arguments": "done\\""}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "5}"}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "function": {"arguments": "}"}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {}, "logprobs": null, "finish_reason": "tool_calls"}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}\n\n',
        b'data: [DONE]\n\n',
    ],
    'multibyte': [
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": ',
        b'"fake-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs":',
        b' null, "finish_reason": null}]}\n\ndata: {"id": "chatcmpl-fake", "object": "chat.completion.chunk",',
        b' "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"content": "Gr\xc3',
        b'\xbc\xc3\x9fe"}, "logprobs": null, "finish_reason": null}]}\n\ndata: {"id": "chatcmpl-fake", "object": "chat',
        b'.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta',
        b'": {"content": " aus "}, "logprobs": null, "finish_reason": null}]}\n\ndata: {"id": "chatcmpl-fake"',
        b', "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"',
        b'index": 0, "delta": {"content": "K\xc3\xb6ln "}, "logprobs": null, "finish_reason": null}]}\n\ndata: {"id',
        b'": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-mode',
        b'l", "choices": [{"index": 0, "delta": {"content": "\xf0\x9f\x98\x80 \xe2\x80\x94 \xc3\xa7"}, "logprobs": null, "finish_reaso',
        b'n": null}]}\n\ndata: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 17000000',
        b'00, "model": "fake-model", "choices": [{"index": 0, "delta": {"content": "a va?"}, "logprobs": nu',
        b'll, "finish_reason": null}]}\n\ndata: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "c',
        b'reated": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {}, "logprobs": nul',
        b'l, "finish_reason": null}]}\n\ndata: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "cr',
        b'eated": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {}, "logprobs": null',
        b', "finish_reason": "stop"}]}\n\ndata: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "c',
        b'reated": 1700000000, "model": "fake-model", "choices": [], "usage": {"prompt_tokens": 10, "comple',
        b'tion_tokens": 5, "total_tokens": 15}}\n\ndata: [DONE]\n\n',
    ],
    'cut_short': [
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_add", "type": "function", "function": {"name": "add", "arguments": ""}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\\"a\\""}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 10"}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
        b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake-model", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ", \\"b"}}]}, "logprobs": null, "finish_reason": null}]}\n\n',
    ],
    # recorded by scripts/record_stream.py
    'llama_server': [
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\ndata: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"1"}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"0"}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" +"}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" "}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"5"}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" ="}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" "}}],"created":1796135791,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"6"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\\n"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\\n"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"This"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" is"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" a"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" classic"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" example"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" of"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" how"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" a"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" calculator"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" can"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" be"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" used"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" to"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" perform"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" calculations"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":","}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" but"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" in"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" a"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" more"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" practical"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" sense"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":","}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" it"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\'s"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" a"}}],"created":1796135792,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" simple"}}],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" and"}}],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" elegant"}}],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" solution"}}],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"."}}],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\n',
        b'data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk"}\n\ndata: {"choices":[],"created":1796135793,"id":"chatcmpl-iXdYuSAiNRpJyLocEZ3oFoSvqJpSpz7I","model":"smollm2-135m-instruct","system_fingerprint":"b223-c74201f","object":"chat.completion.chunk","usage":{"completion_tokens":42,"prompt_tokens":36,"total_tokens":78,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"cache_n":0,"prompt_n":36,"prompt_ms":360.13,"prompt_per_token_ms":10.00361111111111,"prompt_per_second":99.9639019243051,"predicted_n":42,"predicted_ms":1357.726,"predicted_per_token_ms":33.11526829268293,"predicted_per_second":30.197550904969038}}\n\n',
        b'data: [DONE]\n\n',
    ],
    # end of the recording
}
print(len(STREAMS["two_calls"]), "pieces; the third:")
print(STREAMS["two_calls"][2].decode())

# %% [markdown]
# ## From pieces of bytes to lines
#
# A piece of bytes is not a line: it may end anywhere, in the middle of a line, of an event, of
# a character.

# %% [markdown] tags=["predict"]
# Piece 3 of `multibyte` (counting from 0) ends with the first of the two bytes of `ü`. What
# does `STREAMS["multibyte"][3].decode("utf-8")` do?
#
# - [ ] it gives the text with `ü` at the end
# - [x] it raises `UnicodeDecodeError`
# - [ ] it gives the text with `?` at the end
#
# Half a character is not a character: UTF-8 refuses to decode it, and piece 4, which starts
# with the other half, too. The bytes must wait for the rest of the character.

# %%
for number, piece in enumerate(STREAMS["multibyte"][:5]):
    try:
        piece.decode("utf-8")
        print(number, "decodes")
    except UnicodeDecodeError as exc:
        print(number, "does not decode:", exc.reason, "at byte", exc.start)

# %% [markdown]
# ## Exercise 1: `sse_lines(pieces)`
#
# Return the stream's lines as text, in order, without their line ends — the blank lines
# between events too (as `""`). A line is whole only when its `\n` has arrived.

# %% tags=["exercise"]
def sse_lines(pieces):
    """The text lines of a stream that arrived as pieces of bytes."""
    lines = []
    for piece in pieces:
        lines.extend(piece.decode("utf-8").split("\n"))
    return lines

# %% [markdown] tags=["hint"]
# Keep bytes, not text, until a whole line is there: what is left after the last newline of a
# piece belongs in front of the next piece.

# %% [markdown] tags=["hint"]
# ```python
# def sse_lines(pieces):
#     lines, rest = [], b""
#     for piece in pieces:
#         *whole, rest = (rest + piece).split(b"\n")
#         lines.extend(line.decode("utf-8") for line in whole)
#     return lines
# ```

# %% tags=["wrong"]
# wrong: decodes each piece by itself, so a character split across two pieces cannot be read
# expect: UnicodeDecodeError
# replaces: sse_lines
def sse_lines(pieces):
    """The text lines of a stream that arrived as pieces of bytes."""
    lines = []
    for piece in pieces:
        lines.extend(piece.decode("utf-8").split("\n"))
    return lines

# %% tags=["wrong"]
# wrong: splits each piece on its own newlines, so a line that spans two pieces comes out as two
# expect: not a whole line
# replaces: sse_lines
def sse_lines(pieces):
    """The text lines of a stream that arrived as pieces of bytes."""
    lines = []
    for piece in pieces:
        lines.extend(piece.decode("utf-8", errors="replace").split("\n"))
    return lines

# %% tags=["solution"]
def sse_lines(pieces):
    """The text lines of a stream that arrived as pieces of bytes."""
    lines, rest = [], b""
    for piece in pieces:
        *whole, rest = (rest + piece).split(b"\n")   # the last part may be half a line
        lines.extend(line.decode("utf-8") for line in whole)
    return lines

# %%
LINES = {name: attempt(sse_lines, pieces) for name, pieces in STREAMS.items()}
for name, lines in LINES.items():
    shown = lines if isinstance(lines, Exception) else f"{len(lines)} lines, {lines[-2]!r:.60}"
    print(f"{name:10} -> {shown}")

# %% [markdown]
# ## Exercise 2: `read_stream(lines)`
#
# Read the lines into one assistant message: `{"role": "assistant", "content": <the text, or
# None when there was none>}`, plus `"tool_calls"` (in index order, each `{"id", "type":
# "function", "function": {"name", "arguments"}}`) when the model asked for tools, plus `"usage"`
# when a chunk carried it. Skip what is not a `data: ` line. Stop at `data: [DONE]`; lines that
# run out before it mean the stream was cut short: raise `ValueError` saying so.

# %% [markdown] tags=["predict"]
# In `two_calls` the pieces of `add`'s arguments and `upper`'s alternate. A reader that keeps one
# "current call" and adds every arguments piece to the newest call gets what?
#
# - [ ] both calls right: the order of pieces does not matter
# - [x] `add` with no arguments and `upper` with both argument texts run together, not JSON
# - [ ] an error from the server
#
# Only the `index` says which call a piece belongs to; the arrival order says nothing.

# %% tags=["exercise"]
def read_stream(lines):
    """The assistant message a stream of SSE lines spells."""
    text = ""
    for line in lines:
        if line.startswith("data: {"):
            delta = json.loads(line[6:])["choices"][0]["delta"]
            text += delta.get("content", "")
    return {"role": "assistant", "content": text}

# %% [markdown] tags=["hint"]
# Keep the calls in a dict keyed by each piece's `index`: a call's first piece creates its entry
# (id, name), every later piece only adds arguments text to that entry.

# %% [markdown] tags=["hint"]
# A chunk may have no choices (the usage chunk), a delta may be empty or hold `"content": null`:
# read with `.get`, and add text only when it is a string. Remember whether `[DONE]` came.

# %% [markdown] tags=["hint"]
# ```python
# def read_stream(lines):
#     text, calls, usage = [], {}, None
#     for line in lines:
#         if not line.startswith("data: "):
#             continue
#         data = line[len("data: "):]
#         if data == "[DONE]":
#             break
#         chunk = json.loads(data)
#         usage = chunk.get("usage") or usage
#         for choice in chunk.get("choices") or []:
#             delta = choice.get("delta") or {}
#             if isinstance(delta.get("content"), str):
#                 text.append(delta["content"])
#             for piece in delta.get("tool_calls") or []:
#                 call = calls.setdefault(piece["index"], {"id": None, "type": "function",
#                                                          "function": {"name": None, "arguments": ""}})
#                 call["id"] = call["id"] or piece.get("id")
#                 fn = piece.get("function") or {}
#                 call["function"]["name"] = call["function"]["name"] or fn.get("name")
#                 call["function"]["arguments"] += fn.get("arguments") or ""
#     else:
#         raise ValueError("the stream ended before data: [DONE]: it was cut short")
#     message = {"role": "assistant", "content": "".join(text) or None}
#     if calls:
#         message["tool_calls"] = [calls[i] for i in sorted(calls)]
#     if usage:
#         message["usage"] = usage
#     return message
# ```

# %% tags=["wrong"]
# wrong: adds every arguments piece to the newest call, ignoring the index
# expect: index
# patch:
# -    text, calls, usage = [], {}, None
# +    text, calls, usage = [], [], None
# @@
# -                call = calls.setdefault(piece["index"], {"id": None, "type": "function",
# -                                                         "function": {"name": None, "arguments": ""}})
# -                call["id"] = call["id"] or piece.get("id")
# -                fn = piece.get("function") or {}
# -                call["function"]["name"] = call["function"]["name"] or fn.get("name")
# -                call["function"]["arguments"] += fn.get("arguments") or ""
# +                if piece.get("id"):
# +                    calls.append({"id": piece["id"], "type": "function",
# +                                  "function": {"name": piece["function"]["name"], "arguments": ""}})
# +                calls[-1]["function"]["arguments"] += piece.get("function", {}).get("arguments") or ""
# @@
# -        message["tool_calls"] = [calls[i] for i in sorted(calls)]
# +        message["tool_calls"] = calls

# %% tags=["wrong"]
# wrong: never checks that [DONE] came, so a stream cut short passes for a whole reply
# expect: cut short
# patch:
# -        if not line.startswith("data: "):
# -            continue                                # blank lines, comments, event names
# -        data = line[len("data: "):]
# -        if data == "[DONE]":
# -            break
# -        chunk = json.loads(data)
# +        if not line.startswith("data: ") or line == "data: [DONE]":
# +            continue                                # blank lines, comments, event names
# +        chunk = json.loads(line[len("data: "):])
# @@
# -    else:
# -        raise ValueError("the stream ended before data: [DONE]: it was cut short")

# %% tags=["solution"]
def read_stream(lines):
    """The assistant message a stream of SSE lines spells."""
    text, calls, usage = [], {}, None
    for line in lines:
        if not line.startswith("data: "):
            continue                                # blank lines, comments, event names
        data = line[len("data: "):]
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        usage = chunk.get("usage") or usage         # the usage-only last chunk
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                call = calls.setdefault(piece["index"], {"id": None, "type": "function",
                                                         "function": {"name": None, "arguments": ""}})
                call["id"] = call["id"] or piece.get("id")
                fn = piece.get("function") or {}
                call["function"]["name"] = call["function"]["name"] or fn.get("name")
                call["function"]["arguments"] += fn.get("arguments") or ""
    else:
        raise ValueError("the stream ended before data: [DONE]: it was cut short")
    message = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    if usage:
        message["usage"] = usage
    return message

# %%
def lines_of(name):
    """A stream's lines, by your sse_lines if it read them, else by a plain split (so exercise 2 can run)."""
    lines = LINES[name]
    if isinstance(lines, list) and all(isinstance(line, str) for line in lines):
        return lines
    return b"".join(STREAMS[name]).decode("utf-8").split("\n")

READ = {name: attempt(read_stream, lines_of(name)) for name in STREAMS}
for name, message in READ.items():
    print(f"{name:10} -> {message!r:.150}")

# %% [markdown]
# ## The hardened version
#
# `looplab.models.stream.ChatStream` is the same reader, made for the network: it takes the
# bytes as they come (`feed`), splits events as the SSE standard says (CR or LF line ends,
# `data:` lines joined, comments skipped), shows each bit of text the moment it arrives
# (`on_delta`), and turns every broken stream into one sentence — cut in the middle of an
# event, a `data:` line that is not JSON, an error the server sent midway, a call whose
# arguments never completed; a server that stops sending hits the read timeout. Its
# `finish()` writes the whole `chat.completion`, which the adapter reads with the same code as
# an unstreamed reply. `models/responses_stream.py` does the same for the Responses API's
# events. Live replies stream by default; `LLM_STREAM=0` turns it off.

# %%
def hardened(name):
    stream = ChatStream("the recorded server")
    for piece in STREAMS[name]:
        stream.feed(piece)
    try:
        return read_chat_reply(stream.finish())
    except Exception as exc:
        return exc

for name in STREAMS:
    print(f"{name:10} -> {hardened(name)}")

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def cut_into_pieces(d):
    """A recorded stream's bytes cut at random places (inside a character too), maybe with a tail left open."""
    whole = b"".join(STREAMS[d.pick(["multibyte", "two_calls", "cut_short"])])
    if d.maybe(0.3):
        whole += d.pick([b"data: {\"half", b"\xc3", b": a comment\n"])
    cuts = sorted({d.number(0, len(whole)) for _ in range(d.number(0, 12))} | {len(whole)})
    pieces, start = [], 0
    for cut in cuts:
        pieces.append(whole[start:cut])
        start = cut
    return Case((pieces,), f"{len(whole)} bytes in {len(pieces)} pieces")


PIECES = generate(cut_into_pieces, count=60, edges=[
    Case(([],), "no pieces"), Case(([b"data: x\n", b"", b"\n"],), "an empty piece between two"),
    Case(([b"data: Gr\xc3", b"\xbc\xc3\x9fe\n\n"],), "a character cut in two"),
    Case(([b"data: [DONE]"],), "a last line with no newline")])


def chunk_line(choices=None, usage=None):
    chunk = {"id": "c", "object": "chat.completion.chunk", "choices": choices if choices is not None else []}
    if usage:
        chunk["usage"] = usage
    return "data: " + json.dumps(chunk)


def stream_case(d):
    lines = []
    calls = d.number(0, 2)
    for n in range(d.number(0, 5)):
        delta = {}
        if d.maybe():
            delta["content"] = d.pick(["Hi", " there", "", None, "é"])
        index = d.number(0, calls - 1) if calls and d.maybe() else None
        if index is not None:
            piece = {"index": index, "function": {"arguments": d.pick(['{"a"', ": 1}", ""])}}
            if d.maybe(0.4):
                piece["id"], piece["function"]["name"] = f"call_{index}", d.pick(["add", "upper"])
            delta["tool_calls"] = [piece]
        lines.append(chunk_line([{"index": 0, "delta": delta, "finish_reason": None}]))
        lines += d.subset(["", ": keep-alive", "event: message"])
    if d.maybe(0.3):
        lines.append(chunk_line([], {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}))
    if d.maybe(0.85):
        lines += ["data: [DONE]", ""] + (["data: {not json after the end"] if d.maybe(0.2) else [])
    return Case((lines,), f"a stream of {len(lines)} lines")


STREAM_LINES = generate(stream_case, count=120, edges=[
    Case((["data: [DONE]"],), "a stream with nothing before [DONE]"), Case(([],), "no lines at all"),
    Case(([chunk_line([{"index": 0, "delta": {"tool_calls": [
        {"index": 1, "id": "b", "function": {"name": "upper", "arguments": "{}"}}]}}]),
           chunk_line([{"index": 0, "delta": {"tool_calls": [
               {"index": 0, "id": "a", "function": {"name": "add", "arguments": "{}"}}]}}]), "data: [DONE]"],),
         "two calls whose pieces arrive index 1 first")])
# sse_lines reads the pieces without breaking a character
assert not isinstance(LINES["multibyte"], Exception), (
    f"sse_lines raised {type(LINES['multibyte']).__name__} on the multibyte stream: {LINES['multibyte']}; "
    "keep the bytes after the last newline for the next piece and decode only whole lines")
# every line sse_lines gives is a whole line: an event, a blank line or [DONE]
assert all(isinstance(LINES[n], list) and all(line == "" or line.startswith("data: ") for line in LINES[n])
           for n in STREAMS), (
    "a line from sse_lines is not a whole line (it should be 'data: ...' or ''): a line that spans "
    "two pieces must be joined before it is split")
# sse_lines gives the lesson's lines however the bytes are cut
assert (lines_found := compare(sse_lines, reference("sse_lines"), PIECES)), lines_found
# the multibyte text comes out whole
assert isinstance(READ["multibyte"], dict) and READ["multibyte"]["content"] == "Grüße aus Köln 😀 — ça va?", (
    f"read_stream gave {READ['multibyte']!r:.120} for the multibyte stream; join every content piece")
# the two parallel calls keep their ids, names and arguments, matched by index
assert isinstance(READ["two_calls"], dict) and [
    (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
    for c in READ["two_calls"].get("tool_calls", []) if c["function"]["arguments"].strip().endswith("}")
] == [("call_add", "add", {"a": 10, "b": 5}), ("call_up", "upper", {"text": "done"})], (
    f"the two calls came out as {READ['two_calls'].get('tool_calls') if isinstance(READ['two_calls'], dict) else READ['two_calls']}; "
    "put each piece's arguments on the call with the same index")
# a reply with only calls has no text (None), and the usage of the last chunk is kept
assert isinstance(READ["two_calls"], dict) and READ["two_calls"]["content"] is None and \
    READ["two_calls"].get("usage", {}).get("total_tokens") == 15, (
    "for two_calls, content should be None (no text came) and usage the last chunk's "
    f"(total_tokens 15); got content {READ['two_calls'].get('content')!r} and usage {READ['two_calls'].get('usage')}"
    if isinstance(READ["two_calls"], dict) else f"read_stream raised {READ['two_calls']!r}")
# a stream cut short raises ValueError instead of passing for a whole reply
assert isinstance(READ["cut_short"], ValueError), (
    f"the cut_short stream gave {READ['cut_short']!r:.120}; with no data: [DONE] at the end it was cut "
    "short: raise ValueError")
# the real server's stream reads too: its text whole, and the usage of its last chunk
assert isinstance(READ["llama_server"], dict) and READ["llama_server"]["content"] == hardened("llama_server")["content"] \
    and READ["llama_server"].get("usage", {}).get("completion_tokens", 0) > 0, (
    f"read_stream gave {READ['llama_server']!r:.160} for llama-server's stream; it starts with "
    '"content": null and has two events in some pieces — add only string content, keep the usage chunk')
# your messages are the ones looplab assembles, for every whole stream
assert all(isinstance(READ[n], dict) and {k: v for k, v in READ[n].items() if k != "usage"} == hardened(n)
           for n in ("two_calls", "multibyte", "llama_server")), (
    "read_stream's messages differ from looplab's ChatStream for the same streams: compare the two printed above")
# read_stream reads the lesson's message (or raises as it does) from many generated streams
assert (stream_found := compare(read_stream, reference("read_stream"), STREAM_LINES)), stream_found
