// The local model on the page: the GGUF file the learner picked (or fetched from a URL on their
// own host), kept in the Origin Private File System so the next visit loads it without asking;
// its engine (localengine.js, imported only once local mode is used); its status; and the page's
// answer to Python's "model" questions (looplab/models/local.py asks, asking.js carries them).
//
// One model at a time: picking another replaces it, "forget" deletes it from this browser. A model
// downloaded from the catalog (catalogview.js, kept by download.js) is used the same way; the one
// chosen last is remembered (localStorage) so the next visit loads it without asking.

import { stored } from "./download.js";

const FOLDER = "local-model"; // in the OPFS root
const CHOICE = "looplab:local-catalog-model"; // {id, name, file, size, sha256} of the catalog model in use
const GGUF_MAGIC = "GGUF";

/** What is wrong with a file that should be a GGUF model, from its first bytes; null when it looks right. */
export async function ggufProblem(blob, name = blob.name || "the file") {
  if (!blob.size) return `${name} is empty: pick a .gguf model file.`;
  const head = new Uint8Array(await blob.slice(0, 8).arrayBuffer());
  const magic = String.fromCharCode(...head.slice(0, 4));
  if (head.length < 8 || magic !== GGUF_MAGIC) {
    return (
      `${name} is not a GGUF model file (a GGUF file starts with the letters GGUF). Pick a .gguf file, ` +
      "e.g. a Q4_K_M or Q8_0 build of a small instruct model."
    );
  }
  const version = head[4] | (head[5] << 8) | (head[6] << 16) | (head[7] << 24);
  if (version < 2 || version > 3) return `${name} is GGUF version ${version}; this engine reads versions 2 and 3.`;
  return null;
}

async function folder(create = false) {
  if (!navigator.storage || !navigator.storage.getDirectory) return null;
  const root = await navigator.storage.getDirectory();
  try {
    return await root.getDirectoryHandle(FOLDER, { create });
  } catch {
    return null;
  }
}

function chosen() {
  try {
    return JSON.parse(localStorage.getItem(CHOICE) || "null");
  } catch {
    return null;
  }
}

function choose(model) {
  try {
    if (model) {
      const { id, name, file, size, sha256 } = model;
      localStorage.setItem(CHOICE, JSON.stringify({ id, name, file, size, sha256 }));
    } else {
      localStorage.removeItem(CHOICE);
    }
  } catch {
    // storage refused (private mode): the choice lasts this visit only
  }
}

/** The model kept in this browser: {name, file} or null — the catalog model chosen last, else a
 * picked file; {missing: sentence} when the catalog model chosen last is no longer whole here. */
export async function storedModel() {
  const model = chosen();
  if (model) {
    const kept = await stored(model);
    if (kept.kept) return { name: model.file, file: kept.kept };
    return {
      missing:
        `${model.name || model.file}, the model chosen last, is no longer whole in this browser ` +
        `(${mb(kept.partial)} of ${mb(model.size)} kept): download it again in Settings → Local model.`,
    };
  }
  const dir = await folder();
  if (!dir) return null;
  for await (const [name, handle] of dir.entries()) {
    if (handle.kind === "file" && name.toLowerCase().endsWith(".gguf")) return { name, file: await handle.getFile() };
  }
  return null;
}

/** Keep `stream` (of `size` bytes) as the one stored model, reporting bytes written; returns the stored File. */
async function store(name, stream, size, onBytes) {
  await forgetStored();
  const dir = await folder(true);
  if (!dir)
    throw new Error("this browser has no Origin Private File System: the model cannot be kept for the next visit");
  const handle = await dir.getFileHandle(name, { create: true });
  const writable = await handle.createWritable();
  let written = 0;
  const counter = new TransformStream({
    transform(chunk, controller) {
      written += chunk.byteLength;
      onBytes(written, size);
      controller.enqueue(chunk);
    },
  });
  try {
    await stream.pipeThrough(counter).pipeTo(writable);
  } catch (error) {
    await dir.removeEntry(name).catch(() => {});
    throw error;
  }
  return handle.getFile();
}

async function forgetStored() {
  const dir = await folder();
  if (!dir) return;
  const names = [];
  for await (const name of dir.keys()) names.push(name);
  for (const name of names) await dir.removeEntry(name).catch(() => {});
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

export class LocalModel {
  /**
   * @param {(status: {state, text}) => void} onStatus  called whenever the status changes
   * @param {object} visit  {isolated, gpu} (start/visit.js): for the engine's threads and its GPU
   */
  constructor(onStatus, visit) {
    this.onStatus = onStatus;
    this.visit = visit;
    this.engine = null;
    this.loading = null; // the promise of the load under way
    this.state = "none"; // none | loading | ready | failed
    this.text = "No local model yet: pick a .gguf file.";
    this.speed = null;
    this.notKept = "";
    this.ensuring = null; // looking for a stored model
    this.loads = 0; // engines started in this page (a second run reuses the first)
    this.busy = false; // a reply is being written
  }

  status(state, text) {
    this.state = state;
    this.text = text;
    this.onStatus(this);
  }

  describe() {
    const a = this.engine.about;
    const speed =
      this.speed && this.speed.write
        ? ` · reads ${this.speed.read.toFixed(1)} tokens/s, writes ${this.speed.write.toFixed(1)} tokens/s`
        : "";
    const where = a.gpu ? " · WebGPU" : a.cpuBecause ? ` on the CPU (${a.cpuBecause})` : " · CPU";
    const build = a.compat ? " · wllama's slower build for browsers without JSPI" : "";
    const threads = `${a.threads} thread${a.threads === 1 ? "" : "s"}${where}${build}`;
    return `${a.model} · ${mb(a.size)} · loaded in ${(a.loadMs / 1000).toFixed(1)} s · ${threads}${speed}${this.notKept}`;
  }

  /** The id of the catalog model in use or chosen last, or null. */
  catalogId() {
    const model = chosen();
    return model ? model.id : null;
  }

  /** Use a catalog model whose verified file is kept (download.js): load it; the next visit loads it too. */
  async useKept(model, blob) {
    return this.replace(async () => {
      choose(model);
      await this.start(blob, model.file);
    });
  }

  /** A catalog model is being forgotten: unload it if it is the one in use. */
  async forgetCatalog(id) {
    if (this.catalogId() !== id) return;
    choose(null);
    await this.loading?.catch(() => {});
    const engine = this.engine;
    this.engine = null;
    this.speed = null;
    if (engine) await engine.unload();
    this.status("none", "Forgotten: no local model is loaded. Choose one below or pick a .gguf file.");
  }

  /** The learner picked a file: check it, load it, then keep it in this browser. */
  async pick(file) {
    return this.replace(async () => {
      choose(null);
      const problem = await ggufProblem(file);
      if (problem) throw new Error(problem);
      await this.start(file, file.name);
      try {
        await store(file.name, file.stream(), file.size, (done, total) =>
          this.status("loading", `${this.describe()} · keeping a copy in this browser: ${mb(done)} of ${mb(total)}`),
        );
      } catch (error) {
        this.notKept = ` · not kept for your next visit (${error.message || error})`;
      }
    });
  }

  /** Fetch a model from a URL (on the learner's own host), keep it, then load it. */
  async fetchFrom(url) {
    const name = decodeURIComponent(new URL(url, document.baseURI).pathname.split("/").pop() || "model.gguf");
    return this.replace(async () => {
      let response;
      try {
        response = await fetch(url, { credentials: "omit", cache: "no-store" });
      } catch (error) {
        throw new Error(
          `nothing could be fetched from ${url} (${error.message}): check the URL, and that the server allows this page (CORS)`,
        );
      }
      if (!response.ok || !response.body) throw new Error(`${url} answered HTTP ${response.status}`);
      choose(null);
      const size = Number(response.headers.get("content-length")) || 0;
      this.status("loading", `Fetching ${name}…`);
      const file = await store(name.endsWith(".gguf") ? name : `${name}.gguf`, response.body, size, (done, total) =>
        this.status("loading", `Fetching ${name}: ${mb(done)}${total ? ` of ${mb(total)}` : ""}`),
      );
      const problem = await ggufProblem(file, name);
      if (problem) {
        await forgetStored();
        throw new Error(problem);
      }
      await this.start(file, name);
    });
  }

  /** The stored model, loaded if it is not yet (the next visit: no picker). Resolves true when one is ready. */
  ensure() {
    if (this.engine) return Promise.resolve(true);
    if (this.loading)
      return this.loading.then(
        () => Boolean(this.engine),
        () => false,
      );
    if (!this.ensuring) {
      this.ensuring = storedModel()
        .catch((error) => ({
          missing: `The model kept in this browser could not be read (${error.message || error}): reload the page, or pick it again in Settings → Local model.`,
        }))
        .then((stored) => {
          this.ensuring = null;
          if (this.engine || this.loading) return this.ensure();
          if (!stored) {
            if (this.state !== "failed") this.status("none", "No local model yet: pick a .gguf file.");
            return false;
          }
          if (stored.missing) {
            this.status("failed", stored.missing);
            return false;
          }
          return this.replace(() => this.start(stored.file, stored.name)).then(
            () => Boolean(this.engine),
            () => false,
          );
        });
    }
    return this.ensuring;
  }

  /** Whether a run can expect a model: one is loaded, on its way, or being looked for. */
  available() {
    return Boolean(this.engine || this.loading || this.ensuring);
  }

  /** Forget the model: unload it and delete the stored copy. */
  async forget() {
    choose(null);
    const engine = this.engine;
    this.engine = null;
    this.speed = null;
    if (engine) await engine.unload();
    await forgetStored();
    this.status("none", "Forgotten: no local model is kept in this browser. Pick a .gguf file to use one again.");
  }

  async replace(load) {
    const previous = this.loading || Promise.resolve();
    const task = previous
      .catch(() => {})
      .then(async () => {
        if (this.engine) {
          await this.engine.unload();
          this.engine = null;
          this.speed = null;
        }
        this.notKept = "";
        try {
          await load();
          this.status("ready", this.describe());
        } catch (error) {
          this.status("failed", error.message || String(error));
          throw error;
        }
      });
    this.loading = task;
    task
      .catch(() => {})
      .then(() => {
        if (this.loading === task) this.loading = null;
      });
    return task;
  }

  async start(blob, name) {
    this.loads += 1;
    this.status("loading", `Loading ${name} (${mb(blob.size)}): starting the engine…`);
    const { loadEngine } = await import(
      /* the engine bundle, loaded only in local mode */ new URL("localengine.js", document.baseURI).href
    );
    this.status("loading", `Loading ${name} (${mb(blob.size)}) into memory…`);
    this.engine = await loadEngine(blob, { name, visit: this.visit });
    this.status("loading", `${this.describe()} · measuring its speed…`);
    this.speed = await this.engine.measure();
  }

  /** Python's "model" question: {op: "describe"} or {op: "chat", messages, ...} -> the answer;
   * `onText(text)` hears the reply's text as the engine writes it. */
  async answer(request, { signal, temperature = 0, onText = null }) {
    if (!(await this.ensure())) {
      return {
        error:
          this.state === "failed" ? this.text : "no local model is loaded: pick a .gguf file in Settings → Local model",
        kind: "setup",
      };
    }
    if (signal && signal.aborted) return { error: "stopped" };
    if (request.op === "describe") return { ...this.engine.about };
    if (request.op !== "chat") return { error: `the page does not know the request ${JSON.stringify(request.op)}` };
    this.busy = true;
    this.status("ready", `${this.describe()} · writing a reply…`);
    try {
      const answer = await this.engine.chat(request, { signal, temperature, onText });
      const t = answer.timings;
      this.busy = false;
      this.status(
        "ready",
        `${this.describe()}${t.tokens ? ` · last reply: ${t.tokens} tokens in ${(t.total_ms / 1000).toFixed(1)} s${t.generate_ms ? `, ${((t.tokens / t.generate_ms) * 1000).toFixed(1)} tokens/s` : ""}` : ""}`,
      );
      return answer;
    } catch (error) {
      this.busy = false;
      this.status("ready", this.describe());
      if (signal && signal.aborted) return { error: "stopped" };
      return { error: `the engine failed: ${error && error.message ? error.message : error}` };
    }
  }
}
