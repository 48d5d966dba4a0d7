"""Record a streamed reply from llama-server (SmolLM2-135M) as lesson 14b keeps it: pieces of bytes as they arrived.

    python scripts/record_stream.py            # print the recording as the lesson's Python entry
    python scripts/record_stream.py --write    # and put it into lessons/14b-streaming.py

llama-server and the model come from `make llama` (tests/llamaserver.py starts the server on a
free port of 127.0.0.1, greedy, and stops it). One chat completion is asked for with
`"stream": true`, `stream_options: {"include_usage": true}` and one tool, `add`, and the body
is read with `read1`, so each item is what one read off the socket handed over (the HTTP
chunking removed, nothing else). The lesson's entry `'llama_server'` sits between the lines
`# recorded by scripts/record_stream.py` and `# end of the recording`; --write replaces what is
between them and leaves the rest of the lesson as it was.
"""

from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "tests")]
from llamaserver import MODEL_NAME, LlamaServer

LESSON = ROOT / "lessons" / "14b-streaming.py"
BEGIN, END = "    # recorded by scripts/record_stream.py", "    # end of the recording"
REQUEST = {
    "model": MODEL_NAME,
    "messages": [
        {"role": "system", "content": "You are a calculator. Use the add tool to add numbers."},
        {"role": "user", "content": "What is 10 plus 5?"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "add",
                "description": "Add two numbers.",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"],
                },
            },
        }
    ],
    "stream": True,
    "stream_options": {"include_usage": True},
    "max_tokens": 120,
    "temperature": 0,
}


def record(port: int) -> list[bytes]:
    """The streamed reply's body, one item per read."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    connection.request(
        "POST", "/v1/chat/completions", body=json.dumps(REQUEST), headers={"Content-Type": "application/json"}
    )
    reply = connection.getresponse()
    if reply.status != 200:
        raise SystemExit(f"llama-server answered {reply.status}: {reply.read()[:500]!r}")
    pieces = []
    while piece := reply.read1(65536):
        pieces.append(piece)
    connection.close()
    return pieces


def entry(pieces: list[bytes]) -> str:
    """The recording as lines of the lesson's STREAMS dict, between the two marker lines."""
    return "\n".join([BEGIN, "    'llama_server': [", *(f"        {p!r}," for p in pieces), "    ],", END])


def write(text: str) -> None:
    lesson = LESSON.read_text(encoding="utf-8")
    if BEGIN not in lesson or END not in lesson:
        raise SystemExit(f"{LESSON.name} has no lines {BEGIN.strip()!r} … {END.strip()!r} to put the recording between")
    head, rest = lesson.split(BEGIN, 1)
    LESSON.write_text(head + text + rest.split(END, 1)[1], encoding="utf-8")


def main(argv: list[str]) -> None:
    with LlamaServer(log=ROOT / ".cache" / "llama" / "record_stream.log") as server:
        pieces = record(server.port)
    text = entry(pieces)
    print(text)
    print(f"{len(pieces)} pieces, {sum(map(len, pieces))} bytes", file=sys.stderr)
    if "--write" in argv:
        write(text)
        print(f"written into {LESSON.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
