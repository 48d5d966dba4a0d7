// Mends what a memory snapshot breaks for stack switching: CPython in Pyodide calls C functions
// through a trampoline, a tiny wasm-gc module that Pyodide instantiates at every start and whose
// table index it writes into _PyRuntime.emscripten_trampoline — before a snapshot's memory is laid
// over the heap, so a restore puts back the index of the runtime that made the snapshot (Node.js:
// 0, "use the JavaScript trampoline"). Calls then pass through a JavaScript frame, and a Python
// stack holding one cannot be suspended: pyodide.ffi.run_sync (a streamed reply's next piece,
// looplab/http.py) fails with "trying to suspend JS frames". Here the trampoline instance is seen
// while Pyodide starts, and after a restore its index is written back.

/** Start watching for the trampoline's instance; call before loadPyodide. Returns `mend(pyodide)`,
 * which writes the trampoline back after a restore (true when it did) and stops watching. */
export function watchTrampoline() {
  const Instance = WebAssembly.Instance;
  let trampoline = null;
  function Watched(module, imports) {
    const instance = new Instance(module, imports);
    if (!trampoline && typeof instance.exports.trampoline_call === "function")
      trampoline = instance.exports.trampoline_call;
    return instance;
  }
  Watched.prototype = Instance.prototype;
  WebAssembly.Instance = Watched;
  return function mend(pyodide) {
    WebAssembly.Instance = Instance;
    const module = pyodide && pyodide._module;
    if (!trampoline || !module || !module.wasmTable || !module.__PyEM_EMSCRIPTEN_TRAMPOLINE_OFFSET) return false;
    const heap = module.HEAP32;
    const field = (module.__PyRuntime + heap[module.__PyEM_EMSCRIPTEN_TRAMPOLINE_OFFSET / 4]) / 4;
    const table = module.wasmTable;
    if (heap[field] !== 0 && table.get(heap[field]) === trampoline) return false; // right already
    for (let i = table.length - 1; i > 0; i--) {
      if (table.get(i) === trampoline) {
        heap[field] = i;
        return true;
      }
    }
    return false;
  };
}
