"""The Modules of Pyodide's tiny wrapper modules, shared while Python starts (web/src/worker/start/wrappers.js),
run in Node.js: equal small byte strings give one Module, whose Instances still call their own
functions; other bytes, big ones and everything after the start get Modules of their own."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import { shareWrapperModules } from "WRAPPERS";
// Emscripten's wrapper of a JavaScript function of signature (i32) -> i32 (convertJsFunctionToWasm)
const wrapper = (result) => Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, result,
  2, 7, 1, 1, 101, 1, 102, 0, 0, 7, 5, 1, 1, 102, 0, 0);
const big = Uint8Array.of(...wrapper(127), 0, 0x83, 0x02, 4, 112, 97, 100, 115, ...new Array(254).fill(0)); // + a 259-byte custom section
const Original = WebAssembly.Module;
const unshare = shareWrapperModules();
const a = new WebAssembly.Module(wrapper(127)), b = new WebAssembly.Module(wrapper(127));
const other = new WebAssembly.Module(wrapper(126));
const call = (module, f) => new WebAssembly.Instance(module, { e: { f } }).exports.f(20);
const out = {
  same: a === b, other: other !== a, instance: a instanceof WebAssembly.Module && a instanceof Original,
  exports: WebAssembly.Module.exports(a).map((e) => e.name),
  calls: [call(a, (x) => x + 1), call(b, (x) => x * 2)],
  big: big.byteLength > 256 && new WebAssembly.Module(big) !== new WebAssembly.Module(big),
};
unshare();
out.restored = WebAssembly.Module === Original && new WebAssembly.Module(wrapper(127)) !== a;
console.log(JSON.stringify(out));
""".replace("WRAPPERS", (ROOT / "web" / "src" / "worker" / "start" / "wrappers.js").as_uri())


def test_equal_small_bytes_share_a_module_while_python_starts_and_only_then():
    done = subprocess.run(
        [shutil.which("node"), "--input-type=module", "-e", SCRIPT], capture_output=True, text=True, check=True
    )
    out = json.loads(done.stdout)
    assert out["same"] and out["other"], out  # one Module per distinct byte string
    assert out["instance"] and out["exports"] == ["f"], out  # still a WebAssembly.Module, statics and all
    assert out["calls"] == [21, 40], out  # each Instance calls its own function
    assert out["big"], out  # big modules are compiled as asked
    assert out["restored"], out  # after the start: the constructor as it was
