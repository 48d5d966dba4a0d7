// A snapshot whose heap is over the 30 MiB Python's memory starts with, made and restored in Node.js
// with the site's own Pyodide files: once as Pyodide alone does it, once with the memory grown first
// by web/src/worker/start/snapshot.js (growingInstantiate: the worker's growFor, around Node's
// WebAssembly.instantiate). For tests/site/test_snapshot_heap.py; prints one line of JSON.
//
//   node tests/site/big_snapshot.mjs MEBIBYTES

import { fileURLToPath } from "node:url";
import { growingInstantiate, heapOf } from "../../web/src/worker/start/snapshot.js";

const indexURL = fileURLToPath(new URL("../../node_modules/pyodide/", import.meta.url));
const { loadPyodide } = await import(indexURL + "pyodide.mjs");
const mebibytes = Number(process.argv[2]);
const quiet = { stdout: () => {}, stderr: () => {} };

const maker = await loadPyodide({ indexURL, _makeSnapshot: true, ...quiet });
const made = JSON.parse(
  maker.runPython(`
import hashlib, json
big = bytes(range(256)) * (4096 * ${mebibytes})  # kept in the heap: it must come back whole
digest = hashlib.sha256(big).hexdigest()
json.dumps({"digest": digest, "length": len(big)})
`),
);
const snapshot = maker.makeMemorySnapshot();

async function restore(grow) {
  const real = WebAssembly.instantiate;
  if (grow) WebAssembly.instantiate = growingInstantiate(real, () => snapshot);
  try {
    const py = await loadPyodide({ indexURL, _loadSnapshot: snapshot, ...quiet });
    return JSON.parse(
      py.runPython(`
import hashlib, json
more = bytearray(8 * 2**20)  # the memory still grows after the restore
json.dumps({"digest": hashlib.sha256(big).hexdigest(), "length": len(big), "more": len(more), "sum": sum(range(10))})
`),
    );
  } catch (error) {
    return { error: String(error && error.message ? error.message : error).split("\n")[0] };
  } finally {
    WebAssembly.instantiate = real;
  }
}

const without = await restore(false);
const grown = await restore(true);
console.log(JSON.stringify({ made, heapBytes: heapOf(snapshot), without, grown }));
