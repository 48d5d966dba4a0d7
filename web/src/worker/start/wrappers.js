// Pyodide puts JavaScript functions into the wasm table by wrapping each in a tiny module of its own
// (Emscripten's convertJsFunctionToWasm: `new WebAssembly.Module(bytes)`, then an Instance). A start
// makes 262 of them from 30 distinct byte strings, and compiling each anew cost 18–20 ms of
// the worker's thread on a warm visit (a CDP trace: wasm.SyncCompile). A Module holds no state, so
// one made from the same bytes serves every Instance: while Python starts, equal small byte strings
// get the Module made the first time.

const SMALL = 256; // bytes: a wrapper is a few dozen; Pyodide's own modules are far bigger

/** Share the Modules of equal small byte strings until the returned function is called. */
export function shareWrapperModules() {
  const Module = WebAssembly.Module;
  const made = new Map(); // the bytes as a string -> their Module
  function Shared(bytes) {
    if (!(bytes instanceof Uint8Array) || bytes.byteLength > SMALL) return new Module(bytes);
    const key = String.fromCharCode.apply(null, bytes);
    let module = made.get(key);
    if (!module) made.set(key, (module = new Module(bytes)));
    return module;
  }
  Shared.prototype = Module.prototype; // `instanceof WebAssembly.Module` holds for both
  Object.setPrototypeOf(Shared, Module); // and the statics (Module.exports, .imports, .customSections)
  WebAssembly.Module = Shared;
  return () => {
    WebAssembly.Module = Module;
    made.clear();
  };
}
