// Serves one of the page's ES modules to tests/site over stdin/stdout, one JSON request a line:
// {"call": NAME, "args": [...]} calls an exported function, {"get": NAME} reads an export; each
// answer (a Promise awaited) is one JSON line {"value": ...} or {"error": "..."}. The module is the file the site
// bundles, run as it is (it must not need a DOM).
//
//   node tests/site/node_module.mjs web/src/shared/redact.js

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const module = await import(pathToFileURL(resolve(process.argv[2])).href);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const request = JSON.parse(line);
    const value = "call" in request ? await module[request.call](...request.args) : module[request.get];
    answer = { value: value instanceof RegExp ? { source: value.source, flags: value.flags } : value };
  } catch (error) {
    answer = { error: String(error && error.message ? error.message : error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
