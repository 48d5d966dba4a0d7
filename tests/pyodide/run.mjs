// Runs the CPython unit suite (tests/unit) again inside Pyodide on Node.js, offline.
//
//   node tests/pyodide/run.mjs [pytest args]     (default args: tests/unit)
//   node tests/pyodide/run.mjs --script FILE      run one Python file instead (e.g. bench/loop.py)
//
// Pyodide comes from node_modules/pyodide (core only). pytest, hypothesis and their deps are the
// "test" group of wheels.lock.json, fetched beforehand into .cache/wheels by scripts/wheels.py
// (`make test-pyodide` does both). Pyodide is given a lock file made from that group alone, with
// .cache/wheels as both its package cache and its base URL, so a package can only come from those
// files; fetch() is disabled for every http(s) URL as well, so nothing is fetched at test time.
// The repo's pyproject.toml, py/, lessons/ (read by reference() and the course commands) and
// tests/unit are copied into Pyodide's in-memory file system
// (nothing written back to the repo), and pytest runs there with the options of pyproject.toml and
// the hypothesis profile "pyodide" (tests/unit/conftest.py). Exit code: pytest's.
// pytest-timeout is deliberately not in the group: it needs signal.setitimer or threads, and
// Pyodide has neither (with it, any --timeout or timeout mark is an INTERNALERROR here).

import { readFileSync, readdirSync, existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const INDEX = join(ROOT, "node_modules/pyodide");
const WHEELS = join(ROOT, ".cache/wheels");
const GROUP = "test";
// What pytest needs, relative to ROOT (tests/conftest.py only if it exists).
const COPIED = ["pyproject.toml", "py", "lessons", "tests/conftest.py", "tests/unit"].filter((p) =>
  existsSync(join(ROOT, p)),
);
const REPO = "/home/pyodide/looplab"; // the repo copy inside Pyodide

function fail(message) {
  console.error(`test-pyodide: ${message}`);
  process.exit(2);
}

// No network at test time: any http(s) fetch is a bug in this harness, so make it loud.
const realFetch = globalThis.fetch;
globalThis.fetch = (url, ...rest) => {
  const href = String(url?.url ?? url);
  if (/^https?:/i.test(href)) throw new Error(`test-pyodide: network disabled at test time (${href})`);
  return realFetch(url, ...rest);
};

// A Pyodide lock file holding only the pinned wheels of our group.
function lockFromGroup() {
  const groups = JSON.parse(readFileSync(join(ROOT, "wheels.lock.json"), "utf8")).groups;
  const entries = groups[GROUP] ?? fail(`no group "${GROUP}" in wheels.lock.json`);
  const info = JSON.parse(readFileSync(join(INDEX, "pyodide-lock.json"), "utf8")).info;
  const packages = {};
  for (const e of entries) {
    if (!existsSync(join(WHEELS, e.filename)))
      fail(`missing ${e.filename}: run \`.venv/bin/python scripts/wheels.py ${GROUP}\` (or make test-pyodide)`);
    packages[e.name] = {
      name: e.name,
      version: e.version,
      file_name: e.filename,
      sha256: e.sha256,
      install_dir: "site",
      package_type: "package",
      imports: [],
      depends: [],
      unvendored_tests: false,
    };
  }
  return { info, packages };
}

// Copy a file or folder from the repo into Pyodide's file system (skipping caches).
function copyInto(FS, rel) {
  const host = join(ROOT, rel),
    target = `${REPO}/${rel}`;
  if (statSync(host).isDirectory()) {
    FS.mkdirTree(target);
    for (const name of readdirSync(host)) {
      if (name === "__pycache__" || name.startsWith(".")) continue;
      copyInto(FS, relative(ROOT, join(host, name)));
    }
  } else {
    FS.mkdirTree(dirname(target));
    FS.writeFile(target, readFileSync(host));
  }
}

const started = Date.now();
const lockFileContents = lockFromGroup();
const pyodide = await loadPyodide({
  indexURL: INDEX + "/",
  lockFileContents,
  packageBaseUrl: WHEELS + "/",
  packageCacheDir: WHEELS + "/",
  env: {
    HOME: "/home/pyodide",
    HYPOTHESIS_PROFILE: "pyodide",
    HYPOTHESIS_STORAGE_DIRECTORY: "/tmp/hypothesis", // in memory; the profiles also set database=None
    PYTHONDONTWRITEBYTECODE: "1",
    COLUMNS: "100",
  },
});
await pyodide.loadPackage(Object.keys(lockFileContents.packages), {
  messageCallback: () => {},
  errorCallback: (message) => console.error(message),
});
for (const rel of COPIED) copyInto(pyodide.FS, rel);

if (process.argv[2] === "--script") {
  const script = process.argv[3] ?? fail("--script needs a file");
  copyInto(pyodide.FS, script);
  pyodide.runPython(
    `import os, runpy; os.chdir(${JSON.stringify(REPO)}); runpy.run_path(${JSON.stringify(script)}, run_name="__main__")`,
  );
  process.exit(0);
}

const args = process.argv.length > 2 ? process.argv.slice(2) : ["tests/unit"];
pyodide.globals.set("pytest_args", pyodide.toPy(args));
const loaded = ((Date.now() - started) / 1000).toFixed(1);
console.log(
  `test-pyodide: Pyodide ${pyodide.version}, ${Object.keys(lockFileContents.packages).length} local wheels, ready in ${loaded}s`,
);
const code = pyodide.runPython(`
import os, sys, pytest
sys.dont_write_bytecode = True
os.chdir(${JSON.stringify(REPO)})
int(pytest.main(list(pytest_args)))
`);
console.log(`test-pyodide: pytest exit ${code}, ${((Date.now() - started) / 1000).toFixed(1)}s in all`);
process.exit(code);
