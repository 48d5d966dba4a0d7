// The site's memory snapshot in the worker: a ready interpreter restored instead of started
// (Pyodide's private `_loadSnapshot`, pinned 314.0.7; see scripts/snapshot.py and
// ../shared/RESEARCH.md §1). It is `build.snapshot` of build.json: made by Node.js at build time,
// gzipped, streamed through DecompressionStream. A snapshot restores only into the identical
// Pyodide build, into a memory grown to hold its heap before the restore (growFor); anything else
// is refused, and the worker loads Python normally.

const MAGIC = 0x706e7300; // Pyodide's snapshot magic ("\0snp"), src/js/snapshot.ts

/** A snapshot that cannot be used; `reason` goes to the ready line ("snapshot refused: …"). */
export class Refused extends Error {}

/** The reason a load with a snapshot failed, short enough for the status line. */
export function reasonOf(error) {
  const text = String(error && error.message ? error.message : error);
  return text.split("\n")[0].slice(0, 160);
}

/** The bytes of wasm heap a snapshot holds (what the restore copies into Python's memory). */
export function heapOf(bytes) {
  return bytes.byteLength - new Uint32Array(bytes.buffer, bytes.byteOffset, 2)[1];
}

/** Refuse what is not a Pyodide snapshot, or one whose heap is bigger than Python's memory can ever
 * grow to (`heapMax`, build.json: the maximum pyodide.asm.wasm declares). */
export function checkFits(bytes, heapMax) {
  if (bytes.byteLength < 48 || bytes.byteLength % 4)
    throw new Refused(`it is not a snapshot (${bytes.byteLength} bytes)`);
  const head = new Uint32Array(bytes.buffer, bytes.byteOffset, 2);
  if (head[0] !== MAGIC) throw new Refused("it is not a Pyodide snapshot (wrong magic number)");
  const heap = heapOf(bytes);
  if (heapMax && heap > heapMax) {
    throw new Refused(
      `its heap (${(heap / 2 ** 20).toFixed(1)} MiB) is bigger than the ${(heapMax / 2 ** 20).toFixed(0)} MiB Python's memory can grow to`,
    );
  }
  return bytes;
}

/**
 * Grow a fresh instance's memory to hold `needed` bytes, before the restore copies a snapshot's
 * heap into it. The memory starts at 30 MiB (pyodide.asm.wasm defines it, so Pyodide's
 * INITIAL_MEMORY cannot change it), and a bigger heap would fail with "offset is out of bounds"
 * (pyodide issue 6254). Called inside the instantiate wrapper: Emscripten makes its HEAP views
 * from the buffer afterwards, and its own heap growth later starts from the grown size (Cloudflare's
 * workerd does the same). Returns the pages added.
 */
export function growFor(memory, needed) {
  const short = needed - memory.buffer.byteLength;
  if (short <= 0) return 0;
  const pages = Math.ceil(short / 65536);
  memory.grow(pages);
  return pages;
}

/** `WebAssembly.instantiate` that grows the new instance's memory for a snapshot of `bytes()`
 * (a heap of heapOf(bytes) bytes; 0 or null: no growth), for Pyodide's own instantiation in Node.js. */
export function growingInstantiate(instantiate, bytes) {
  return async (...args) => {
    const result = await instantiate(...args);
    const snapshot = bytes();
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    if (snapshot) growFor(instance.exports.memory, heapOf(snapshot));
    return result;
  };
}

/**
 * The site's snapshot (a fetch's response), inflated as it arrives (DecompressionStream) into one
 * buffer of the size build.json gives; `onBytes(n)` counts the compressed bytes for the loading
 * bar. Rejects (Refused) when it is missing or its gzip stream is corrupt or of the wrong size.
 */
export async function readBuildSnapshot(fetched, rawBytes, onBytes) {
  const response = await fetched;
  if (!response.ok || !response.body) throw new Refused(`the site's snapshot is missing (HTTP ${response.status})`);
  const counted = response.body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        onBytes(chunk.byteLength);
        controller.enqueue(chunk);
      },
    }),
  );
  const out = new Uint8Array(rawBytes);
  let at = 0;
  try {
    const reader = counted.pipeThrough(new DecompressionStream("gzip")).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (at + value.byteLength > out.byteLength)
        throw new Refused("the site's snapshot is bigger than build.json says");
      out.set(value, at);
      at += value.byteLength;
    }
  } catch (error) {
    throw error instanceof Refused ? error : new Refused(`the site's snapshot is corrupt (${reasonOf(error)})`);
  }
  if (at !== out.byteLength)
    throw new Refused(`the site's snapshot is ${at} bytes, not the ${out.byteLength} build.json says`);
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
