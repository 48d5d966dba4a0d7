// The site's memory snapshot in the worker: a ready interpreter restored instead of started
// (Pyodide's private `_loadSnapshot`, pinned 314.0.7; see scripts/snapshot.py and
// ../shared/RESEARCH.md §1). It is `build.snapshot` of build.json: made by Node.js at build time,
// gzipped, streamed through DecompressionStream. A snapshot restores only into the identical
// Pyodide build and only if its heap fits the memory the wasm module starts with; anything else is
// refused, and the worker loads Python normally.

const MAGIC = 0x706e7300; // Pyodide's snapshot magic ("\0snp"), src/js/snapshot.ts

/** A snapshot that cannot be used; `reason` goes to the ready line ("snapshot refused: …"). */
export class Refused extends Error {}

/** The reason a load with a snapshot failed, short enough for the status line. */
export function reasonOf(error) {
  const text = String(error && error.message ? error.message : error);
  return text.split("\n")[0].slice(0, 160);
}

/** Refuse a snapshot whose heap would not fit (restoring it would throw "offset is out of bounds",
 * pyodide issue 6254) or that is not a Pyodide snapshot at all. */
export function checkFits(bytes, heapLimit) {
  if (bytes.byteLength < 48 || bytes.byteLength % 4) throw new Refused(`it is not a snapshot (${bytes.byteLength} bytes)`);
  const head = new Uint32Array(bytes.buffer, bytes.byteOffset, 2);
  if (head[0] !== MAGIC) throw new Refused("it is not a Pyodide snapshot (wrong magic number)");
  const heap = bytes.byteLength - head[1];
  if (heapLimit && heap > heapLimit) {
    throw new Refused(`its heap (${(heap / 2 ** 20).toFixed(1)} MiB) is bigger than the ${(heapLimit / 2 ** 20).toFixed(0)} MiB Python starts with`);
  }
  return bytes;
}

/**
 * The site's snapshot (a fetch's response), inflated as it arrives (DecompressionStream) into one
 * buffer of the size build.json gives; `onBytes(n)` counts the compressed bytes for the loading
 * bar. Rejects (Refused) when it is missing or its gzip stream is corrupt or of the wrong size.
 */
export async function readBuildSnapshot(fetched, rawBytes, onBytes) {
  const response = await fetched;
  if (!response.ok || !response.body) throw new Refused(`the site's snapshot is missing (HTTP ${response.status})`);
  const counted = response.body.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      onBytes(chunk.byteLength);
      controller.enqueue(chunk);
    },
  }));
  const out = new Uint8Array(rawBytes);
  let at = 0;
  try {
    const reader = counted.pipeThrough(new DecompressionStream("gzip")).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (at + value.byteLength > out.byteLength) throw new Refused("the site's snapshot is bigger than build.json says");
      out.set(value, at);
      at += value.byteLength;
    }
  } catch (error) {
    throw error instanceof Refused ? error : new Refused(`the site's snapshot is corrupt (${reasonOf(error)})`);
  }
  if (at !== out.byteLength) throw new Refused(`the site's snapshot is ${at} bytes, not the ${out.byteLength} build.json says`);
  return out;
}

/** Remove a copy of the site's snapshot that failed (e.g. corrupt in the service worker's cache),
 * so the next load fetches it afresh from the site. */
export async function forgetCopies(url, storage = globalThis.caches) {
  if (!storage) return;
  for (const name of await storage.keys()) {
    const cache = await storage.open(name);
    await cache.delete(url, { ignoreSearch: true });
  }
}
