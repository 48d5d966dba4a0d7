// A catalog model's file: downloaded on the learner's word, resumable, verified, kept.
//
// The bytes go straight into the Origin Private File System as they come, in parts of 8 MB
// (`local-models/<id>/part-00000` …): a part is written to `part-N.tmp` and renamed when whole, so a
// pause, a cut connection or a reload keeps every whole part, and the next request asks only for
// the rest (HTTP Range: `bytes=<what we have>-`). Parts, not one growing file: a browser commits a
// file being written only when it is closed, and reopening a big one to append copies it whole.
// A host that ignores Range (200 instead of 206) is read from the start again. The whole file (a
// Blob of the parts, as the engine reads it) is hashed a chunk at a time (sha256.js) before it is
// ever used: another hash deletes it. Then `verified` (the sha256) is written beside the parts:
// that is what "kept" means. Several models may be kept; `forget` deletes one.

import { Sha256 } from "./sha256.js";

const FOLDER = "local-models"; // in the OPFS root (a picked .gguf file lives in "local-model")
const PART = 8 * 1024 * 1024;
const RETRIES = 3; // a cut connection is resumed this many times in a row before the learner is asked
const partName = (index) => `part-${String(index).padStart(5, "0")}`;

async function modelFolder(model, create = false) {
  if (!navigator.storage || !navigator.storage.getDirectory) return null;
  const root = await navigator.storage.getDirectory();
  const all = await root.getDirectoryHandle(FOLDER, { create }).catch(() => null);
  return all && all.getDirectoryHandle(model.id, { create }).catch(() => null);
}

/** The whole parts in a model's folder, in order, as Files (a half-written part is deleted). */
async function parts(dir) {
  const found = [];
  const stale = [];
  for await (const [name, handle] of dir.entries()) {
    if (handle.kind !== "file") continue;
    if (/^part-\d{5}$/.test(name)) found.push([name, await handle.getFile()]);
    else if (name.endsWith(".tmp")) stale.push(name);
  }
  for (const name of stale) await dir.removeEntry(name).catch(() => {});
  found.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const files = [];
  for (const [index, [name, file]] of found.entries()) {
    if (name !== partName(index)) break; // a gap: what follows it cannot be used
    files.push(file);
  }
  return files;
}

async function clearParts(dir) {
  const names = [];
  for await (const name of dir.keys()) names.push(name);
  for (const name of names) await dir.removeEntry(name).catch(() => {});
}

async function text(dir, name) {
  return dir
    .getFileHandle(name)
    .then((handle) => handle.getFile())
    .then((file) => file.text())
    .catch(() => null);
}

/** What this browser keeps of a catalog model: {kept: Blob|null, partial: bytes}. */
export async function stored(model) {
  const dir = await modelFolder(model);
  if (!dir) return { kept: null, partial: 0 };
  const files = await parts(dir);
  const bytes = files.reduce((sum, f) => sum + f.size, 0);
  const verified = (await text(dir, "verified")) === model.sha256 && bytes === model.size;
  return { kept: verified ? new Blob(files) : null, partial: verified ? 0 : bytes };
}

/** Bytes the catalog's models keep in this browser (whole and partial). */
export async function spaceUsed() {
  if (!navigator.storage || !navigator.storage.getDirectory) return 0;
  const root = await navigator.storage.getDirectory();
  const all = await root.getDirectoryHandle(FOLDER).catch(() => null);
  let bytes = 0;
  if (!all) return bytes;
  for await (const dir of all.values()) {
    if (dir.kind !== "directory") continue;
    for await (const handle of dir.values()) if (handle.kind === "file") bytes += (await handle.getFile()).size;
  }
  return bytes;
}

/** Delete everything kept of a model. */
export async function forget(model) {
  if (!navigator.storage || !navigator.storage.getDirectory) return;
  const root = await navigator.storage.getDirectory();
  const all = await root.getDirectoryHandle(FOLDER).catch(() => null);
  if (all) await all.removeEntry(model.id, { recursive: true }).catch(() => {});
}

export class DownloadError extends Error {}

/**
 * Download `model` (a catalog entry with `download`, `size`, `sha256`) into OPFS, resuming what
 * is kept of it. `onProgress({state, bytes, total, speed})`: state is "downloading" or
 * "verifying". `signal` pauses (the whole parts stay). Resolves with the verified Blob; rejects
 * with a DownloadError whose message is a sentence for the learner, or an AbortError when paused.
 */
export async function download(model, { onProgress, signal }) {
  const dir = await modelFolder(model, true);
  if (!dir) throw new DownloadError("This browser has no Origin Private File System: a model cannot be kept here.");
  const host = new URL(model.download).host;
  let quiet = 0; // attempts in a row that brought no whole part
  for (;;) {
    const have = (await parts(dir)).reduce((sum, f) => sum + f.size, 0);
    if (have >= model.size) break;
    try {
      await fetchRest(model, dir, have, host, { onProgress, signal });
      quiet = 0;
    } catch (error) {
      if (signal.aborted || error instanceof DownloadError) throw error;
      const now = (await parts(dir)).reduce((sum, f) => sum + f.size, 0);
      quiet = now > have ? 0 : quiet + 1;
      if (quiet >= RETRIES) {
        throw new DownloadError(
          `The download from ${host} stopped at ${mb(now)} of ${mb(model.size)} (${error.message || error}); ` +
            "what came is kept: press Resume to go on.",
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 300 * (quiet + 1)));
    }
  }
  onProgress({ state: "verifying", bytes: model.size, total: model.size, speed: 0 });
  const blob = new Blob(await parts(dir));
  const hash = new Sha256();
  const reader = blob.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hash.update(value);
  }
  const got = hash.hex();
  if (blob.size !== model.size || got !== model.sha256) {
    await forget(model);
    throw new DownloadError(
      `The file from ${host} is not the ${model.name} the catalog names: its sha256 is ${got.slice(0, 12)}…, ` +
        `not ${model.sha256.slice(0, 12)}…. It was deleted and is not used.`,
    );
  }
  const marker = await (await dir.getFileHandle("verified", { create: true })).createWritable();
  await marker.write(got);
  await marker.close();
  return blob;
}

/** One request for the bytes from `have` on, written into parts as they come. */
async function fetchRest(model, dir, have, host, { onProgress, signal }) {
  const headers = have ? { Range: `bytes=${have}-` } : {};
  let response;
  try {
    response = await fetch(model.download, { headers, signal, credentials: "omit", cache: "no-store" });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Error(`${host} could not be reached: ${error.message}`);
  }
  if ([401, 403, 404, 410].includes(response.status)) {
    throw new DownloadError(
      `${host} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""} for ` +
        `${model.file}: the catalog's address for it is wrong or the file moved. Nothing was kept.`,
    );
  }
  if (!response.ok || !response.body) throw new Error(`${host} answered HTTP ${response.status}`);
  let index = 0;
  let bytes = 0;
  if (response.status === 206) {
    index = Math.floor(have / PART); // `have` is always whole parts
    bytes = have;
  } else if (have) {
    await clearParts(dir); // a 200 to a range request is the whole file: begin again
  }
  const start = bytes;
  const began = performance.now();
  let part = null;
  let inPart = 0;
  const open = async () => {
    const handle = await dir.getFileHandle(`${partName(index)}.tmp`, { create: true });
    part = { handle, writable: await handle.createWritable() };
    inPart = 0;
  };
  const seal = async () => {
    await part.writable.close();
    await part.handle.move(partName(index));
    index += 1;
    part = null;
  };
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let at = 0;
      while (at < value.byteLength) {
        if (!part) await open();
        const take = Math.min(PART - inPart, value.byteLength - at);
        await part.writable.write(value.subarray(at, at + take));
        at += take;
        inPart += take;
        bytes += take;
        if (inPart === PART) await seal();
      }
      const seconds = (performance.now() - began) / 1000;
      onProgress({
        state: "downloading",
        bytes,
        total: model.size,
        speed: seconds > 0 ? (bytes - start) / seconds : 0,
      });
    }
    if (part && bytes === model.size) await seal(); // the last, shorter part
  } finally {
    if (part) await part.writable.abort().catch(() => {}); // a half part is not kept
  }
  if (bytes < model.size) throw new Error(`the connection closed after ${mb(bytes)}`);
}

export const mb = (bytes) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
