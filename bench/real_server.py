"""The curriculum live against a real model server — figures printed, nothing asserted.

    python bench/real_server.py                 # every lesson, LLM_MAX_TOKENS at its default (512)
    python bench/real_server.py 6 12            # some lessons (numbers)
    LLM_MAX_TOKENS=4096 python bench/real_server.py 6   # the same lesson with a looser limit

llama-server (llama.cpp) with SmolLM2-135M-Instruct, built and extracted by `make llama`, is
started on 127.0.0.1 with --jinja (greedy decoding); every lesson's solution runs through
`python -m looplab run N --solution --live --trace`, behind a recording pass-through
(tests/llamaserver.py). Per lesson: the wall time, the checks passed / not checked / failed as
the command line marked them, the replies, the longest reply in tokens (the server's
usage.completion_tokens) and in characters, and how many replies the token limit cut.
`make test-real` prints the same table for the run it tested.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "real")]

from curriculum import KEY, LESSONS, figures, run_lesson, table
from llamaserver import MODEL_NAME, LlamaServer, Recorder


def main(argv: list[str]) -> None:
    wanted = {int(a) for a in argv if a.isdigit()}
    lessons = [p for p in LESSONS if not wanted or int(p.name[:2]) in wanted]
    limit = {"LLM_MAX_TOKENS": os.environ["LLM_MAX_TOKENS"]} if os.environ.get("LLM_MAX_TOKENS") else {}
    rows = []
    with LlamaServer(key=KEY) as server, Recorder(server) as proxy:
        print(
            f"llama-server on {server.url}, model {MODEL_NAME}, LLM_MAX_TOKENS "
            f"{limit.get('LLM_MAX_TOKENS', 'default (512)')}",
            flush=True,
        )
        for path in lessons:
            proxy.take()
            run = run_lesson(path, proxy.url, KEY, MODEL_NAME, **limit)
            rows.append(figures(run, proxy.take()))
            print(f"  {path.stem}: {rows[-1]['seconds']:.1f} s", flush=True)
    print(table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
