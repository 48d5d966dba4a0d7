"""The inflated snapshot kept without its zero pages (web/src/worker/start/sparse.js), run in Node.js:
it unpacks to the very bytes it was made from, holds only the pages that are not all zeros, and
anything cut short or spoilt unpacks to nothing (the worker then fetches the snapshot)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
PAGE = 65536
SCRIPT = """
import { readFileSync, writeFileSync } from "node:fs";
import { packed, unpackedBy } from "SPARSE";
const [input, size, cut] = process.argv.slice(1);
const raw = new Uint8Array(readFileSync(input));
const blob = new Blob(packed(raw));
let buffer = await blob.arrayBuffer();
if (Number(cut)) buffer = buffer.slice(0, buffer.byteLength - Number(cut));
// reads as a file's handle does (worker/start/inflated.js): the bytes there are, fewer at the end
const read = (into, at) => {
  const part = new Uint8Array(buffer).subarray(at, at + into.byteLength);
  new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(part);
  return part.byteLength;
};
const out = unpackedBy(read, buffer.byteLength, Number(size));
writeFileSync(input + ".out", out ? out : new Uint8Array(0));
console.log(JSON.stringify({ packed: blob.size, unpacked: out ? out.byteLength : null }));
""".replace("SPARSE", (ROOT / "web" / "src" / "worker" / "start" / "sparse.js").as_uri())


def round_trip(raw: bytes, cut: int = 0) -> tuple[dict, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.bin"
        path.write_bytes(raw)
        done = subprocess.run(
            [shutil.which("node"), "--input-type=module", "-e", SCRIPT, "--", str(path), str(len(raw)), str(cut)],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout), (Path(tmp) / "snapshot.bin.out").read_bytes()


# a snapshot-like buffer: pages that are zero, or hold a few bytes somewhere; a short last page
pages = st.lists(
    st.one_of(st.none(), st.tuples(st.integers(0, PAGE - 1), st.binary(min_size=1, max_size=8))), min_size=1, max_size=6
)


@settings(max_examples=25, deadline=None)
@given(pages, st.integers(0, PAGE // 4 - 1))
def test_it_unpacks_to_the_same_bytes_and_keeps_only_the_pages_with_data(layout, short):
    raw = bytearray(len(layout) * PAGE - short * 4)
    for number, content in enumerate(layout):
        if content:
            at = min(number * PAGE + content[0], len(raw) - len(content[1]))
            raw[at : at + len(content[1])] = content[1]
    raw = bytes(raw)
    kept = [n for n in range(-(-len(raw) // PAGE)) if any(raw[n * PAGE : (n + 1) * PAGE])]
    facts, back = round_trip(raw)
    assert back == raw
    assert facts["unpacked"] == len(raw)
    assert facts["packed"] == 4 + 4 * len(kept) + sum(len(raw[n * PAGE : (n + 1) * PAGE]) for n in kept)


def test_a_copy_cut_short_unpacks_to_nothing():
    raw = bytes(PAGE) + b"\1" * PAGE + bytes(100)
    facts, _ = round_trip(raw)
    assert facts == {"packed": 4 + 4 + PAGE, "unpacked": len(raw)}
    for cut in (1, PAGE, PAGE + 4):
        facts, back = round_trip(raw, cut)
        assert facts["unpacked"] is None and back == b"", cut
