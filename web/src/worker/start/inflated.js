// The inflated snapshot, kept for later visits: a visit after the first restores the snapshot
// already inflated (30 MiB, kept without its zero pages: sparse.js) instead of fetching and
// gunzipping 7 MB (0.3 s of a core here, ../shared/RESEARCH.md §6).
//
// It lives in the origin's private file system (OPFS), read with a synchronous access handle: each
// run of pages is read on this thread straight to its place in the buffer Pyodide restores from,
// with no copy through the browser process. On this 2-core machine that made a warm start 24 ms
// faster than the same copy in Cache Storage (474 -> 450 ms, median of 7 fresh profiles each), the
// snapshot arriving ~110 ms earlier. One file per build, `looplab-snapshot/<version>.inflated`,
// written under another name and then renamed, so a reader never sees half of one; writing it
// removes other builds' copies. A reader refuses a copy that does not unpack to the snapshot's
// size, and one that was refused is forgotten: the next visit fetches the site's snapshot again.
// Python never reaches the folder: worker.js withdraws navigator.storage before any run (code from
// a link could otherwise leave a snapshot of its own for every later visit); this module took the
// StorageManager first.

import { packed, unpackedBy } from "./sparse.js";

const FOLDER = "looplab-snapshot";
const storage = self.navigator && self.navigator.storage; // taken before worker.js withdraws it
const hasFiles = Boolean(storage && typeof storage.getDirectory === "function");
const WRITE_CHUNK = 2 ** 21; // bytes written per task: the worker answers messages between them

const nameOf = (build) => `${build.version}.inflated`;

async function folder(create) {
  return (await storage.getDirectory()).getDirectoryHandle(FOLDER, { create });
}

/** This build's inflated snapshot (build.snapshot.rawBytes bytes), or null: none kept, one being
 * written (its handle is exclusive), one that does not unpack to its size, or no such storage. */
export async function readInflated(build) {
  if (!hasFiles || !build.version) return null;
  try {
    const file = await (await folder(false)).getFileHandle(nameOf(build));
    const handle = await file.createSyncAccessHandle({ mode: "read-only" }); // several readers at once (e.g. two tabs)
    try {
      return unpackedBy((into, at) => handle.read(into, { at }), handle.getSize(), build.snapshot.rawBytes);
    } finally {
      handle.close();
    }
  } catch {
    return null;
  }
}

/** Keep `bytes` (this worker's own copy of the inflated snapshot) for the next visit. Resolves to
 * whether it was kept. */
export async function keepInflated(build, bytes) {
  if (!hasFiles || !build.version) return false;
  try {
    const dir = await folder(true);
    // under another name, then renamed (where the browser can rename: else a reader refuses half a copy)
    const renames =
      typeof FileSystemFileHandle !== "undefined" && typeof FileSystemFileHandle.prototype.move === "function";
    const file = await dir.getFileHandle(renames ? `${nameOf(build)}.part` : nameOf(build), { create: true });
    const handle = await file.createSyncAccessHandle();
    try {
      handle.truncate(0);
      let at = 0;
      let sinceYield = 0;
      for (const chunk of packed(bytes)) {
        at += handle.write(chunk, { at });
        sinceYield += chunk.byteLength;
        if (sinceYield >= WRITE_CHUNK) {
          sinceYield = 0;
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      }
      handle.flush();
    } finally {
      handle.close();
    }
    if (renames) await file.move(nameOf(build));
    for await (const name of dir.keys()) {
      if (name !== nameOf(build)) await dir.removeEntry(name).catch(() => {}); // other builds' copies
    }
    return true;
  } catch {
    return false; // (another tab writing the same copy, storage full or refused): the next visit fetches
  }
}

/** Forget this build's copy (one that was refused). */
export function forgetInflated(build) {
  if (!hasFiles || !build.version) return;
  folder(false)
    .then((dir) => dir.removeEntry(nameOf(build)))
    .catch(() => {});
}
