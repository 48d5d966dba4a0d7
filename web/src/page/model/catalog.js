// The model catalog (web/models.json, its format in web/models.md): read, checked, each model's
// download address worked out (its host's URL, or the catalog's mirror folder + its file), and
// the device check's verdict. DOM-free: tests/site/test_model_catalog.py runs it in Node.js.

export const FORMAT = 1;
const ID = /^[a-z0-9][a-z0-9.-]*$/;
const SHA256 = /^[0-9a-f]{64}$/;
const TIERS = ["small", "laptop", "large"];

/**
 * The catalog `data` (parsed JSON) fetched from `address` -> {models, default}, each model with
 * its `download` URL; or throws an Error whose message says what is wrong with the catalog.
 */
export function readCatalog(data, address) {
  const where = `the model catalog (${address})`;
  if (!data || typeof data !== "object" || !Array.isArray(data.models)) {
    throw new Error(`${where} is not a catalog: it has no "models" list.`);
  }
  if (data.format !== FORMAT) {
    throw new Error(`${where} is format ${JSON.stringify(data.format)}; this page reads format ${FORMAT}.`);
  }
  const mirror = typeof data.mirror === "string" && data.mirror ? new URL(data.mirror, address).href : null;
  const seen = new Set();
  const models = data.models.map((entry, index) => {
    const problem = modelProblem(entry, seen);
    if (problem) throw new Error(`${where}: model ${index + 1} ${problem}.`);
    seen.add(entry.id);
    const download = mirror ? new URL(encodeURIComponent(entry.file), mirror).href : new URL(entry.url, address).href;
    return { ...entry, download };
  });
  const fallback = models.find((m) => m.tier === "laptop") || models[0];
  const chosen = models.find((m) => m.id === data.default) || fallback || null;
  return { models, default: chosen ? chosen.id : null, mirror };
}

function modelProblem(m, seen) {
  if (!m || typeof m !== "object") return "is not an object";
  if (typeof m.id !== "string" || !ID.test(m.id)) return `has no usable id (${JSON.stringify(m.id)})`;
  if (seen.has(m.id)) return `repeats the id ${m.id}`;
  for (const key of ["name", "file", "url", "licence", "quantisation", "parameters"]) {
    if (typeof m[key] !== "string" || !m[key]) return `(${m.id}) has no ${key}`;
  }
  if (!/\.gguf$/i.test(m.file) || /[/\\]/.test(m.file)) return `(${m.id}) names a file that is not a plain .gguf name`;
  if (!Number.isSafeInteger(m.size) || m.size <= 0) return `(${m.id}) has no size in bytes`;
  if (typeof m.sha256 !== "string" || !SHA256.test(m.sha256)) return `(${m.id}) has no sha256 of 64 hex digits`;
  if (!Number.isSafeInteger(m.memory) || m.memory <= 0) return `(${m.id}) does not say the memory it needs`;
  if (!TIERS.includes(m.tier))
    return `(${m.id}) has the tier ${JSON.stringify(m.tier)}, not one of ${TIERS.join(", ")}`;
  return null;
}

const GB = 1e9;
export const gb = (bytes) => `${(bytes / GB).toFixed(bytes < GB ? 2 : 1)} GB`;

/**
 * The device check: what this device can run, from its facts — `memory` (navigator.deviceMemory,
 * in GB; Chrome rounds it and caps it at 8; undefined where the browser does not say),
 * `storageFree` (bytes the origin may still store; undefined when unknown), `gpu` (a WebGPU
 * adapter on real hardware), `jspi` (WebAssembly.Suspending: without it the engine runs a slower build), `threads`
 * (cross-origin isolated, with the core count) — against the catalog's models.
 *
 * -> {tier: "none"|"small"|"laptop"|"large", recommended: id|null, fits: {id: reason|null}, sentence}
 * `fits[id]` is null when the model fits, else the reason it does not.
 */
export function deviceCheck(facts, catalog) {
  const { memory, storageFree, gpu = false, jspi = true, threads = 1 } = facts;
  const fits = {};
  // A page gets at most about half of the device's memory before the browser or the OS ends it.
  const usable = typeof memory === "number" && memory > 0 ? (memory * GB) / 2 : null;
  for (const m of catalog.models) {
    if (usable !== null && m.memory > usable) {
      fits[m.id] = `it needs about ${gb(m.memory)} of memory; this device has about ${memory} GB`;
    } else if (typeof storageFree === "number" && m.size > storageFree) {
      fits[m.id] = `its file is ${gb(m.size)}; this browser lets the site store ${gb(storageFree)} more`;
    } else {
      fits[m.id] = null;
    }
  }
  // Without JSPI the engine runs its compat build (localengine.js): it works, more slowly.
  const how =
    `${gpu ? "WebGPU" : "the CPU"}${threads > 1 ? `, ${threads} threads` : ", one thread"}` +
    (jspi ? "" : ", the slower build for browsers without JSPI");
  const fitting = catalog.models.filter((m) => fits[m.id] === null);
  if (!fitting.length) {
    const smallest = [...catalog.models].sort((a, b) => a.memory - b.memory)[0];
    const why = smallest ? fits[smallest.id] : "the catalog lists no model";
    return {
      tier: "none",
      recommended: null,
      fits,
      sentence: `This device is too small for a local model (${why}): use scripted replies or your own key.`,
    };
  }
  // With a GPU, the largest model that fits; else the catalog's default when it fits; else the
  // lightest model of the largest tier that fits.
  const rank = (m) => TIERS.indexOf(m.tier);
  const best = Math.max(...fitting.map(rank));
  const lightestOfBest = fitting.filter((m) => rank(m) === best).sort((a, b) => a.memory - b.memory)[0];
  const preferred = fitting.find((m) => m.id === catalog.default);
  const recommended = gpu || !preferred ? lightestOfBest : preferred;
  const tier = TIERS[rank(recommended)];
  const memoryWords =
    typeof memory === "number" ? `about ${memory} GB of memory` : "memory the browser does not report";
  const sentence =
    tier === "small"
      ? `This device can run only a small model (${memoryWords}, ${how}): ${recommended.name} will work, slowly and with weak choices; scripted replies or your own key do better.`
      : `This device can run a local model (${memoryWords}, ${how}): ${recommended.name} is recommended.`;
  return { tier, recommended: recommended.id, fits, sentence };
}
