// Memory snapshots in the worker: a ready interpreter restored instead of started (Pyodide's
// private `_loadSnapshot`, pinned 314.0.7; see scripts/snapshot.py and ../shared/RESEARCH.md §1).
//
// Two sources: the site's own (`build.snapshot` of build.json: made by Node.js at build time,
// gzipped, streamed through DecompressionStream) and one made on this device after a normal load
// (raw, in Cache Storage with its SHA-256, keyed by the build's version). A snapshot restores only
// into the identical Pyodide build and only if its heap fits the memory the wasm module starts
// with; anything else is refused, and the worker loads Python normally.

/** Device snapshots live in a cache of their own. Its name must not start with "looplab-": the
 * service worker deletes every such cache but its own when a build takes over. */
const CACHE_PREFIX = "looplab.snapshot.";
const DEVICE_KEY = "device-snapshot.bin";
const TIMES_KEY = "restore-times.json";
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

async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This device's snapshots and restore times for one build (none where Cache Storage is missing,
 * and none unless `enabled`: device snapshots are not on by default yet, see worker.js). */
export class DeviceStore {
  constructor(version, enabled) {
    this.name = CACHE_PREFIX + version;
    this.available = Boolean(enabled) && typeof caches !== "undefined";
    this.base = new URL("./", self.location.href);
  }

  key(name) {
    return new URL(name, this.base).href;
  }

  async open() {
    return this.available ? caches.open(this.name) : null;
  }

  /** Whether a device snapshot is kept (cheap: no body is read). */
  async has() {
    const cache = await this.open().catch(() => null);
    return Boolean(cache && (await cache.match(this.key(DEVICE_KEY))));
  }

  /** The device snapshot, checked against its SHA-256 (a corrupt one is refused). */
  async read() {
    const cache = await this.open();
    const hit = cache && (await cache.match(this.key(DEVICE_KEY)));
    if (!hit) throw new Refused("this device keeps no snapshot");
    const bytes = new Uint8Array(await hit.arrayBuffer());
    if ((await sha256(bytes)) !== hit.headers.get("x-sha256")) {
      throw new Refused("this device's snapshot is corrupt (its SHA-256 does not match)");
    }
    return bytes;
  }

  /** Keep a snapshot made here (after checking it fits), with its SHA-256. */
  async write(bytes, heapLimit) {
    checkFits(bytes, heapLimit);
    const cache = await this.open();
    if (!cache) return false;
    const headers = { "content-type": "application/octet-stream", "x-sha256": await sha256(bytes) };
    await cache.put(this.key(DEVICE_KEY), new Response(bytes, { headers }));
    return true;
  }

  async forget() {
    const cache = await this.open().catch(() => null);
    if (cache) await cache.delete(this.key(DEVICE_KEY));
  }

  /** The last measured restore time of each source (ms, worker start -> ready): {build, device}. */
  async times() {
    const cache = await this.open().catch(() => null);
    const hit = cache && (await cache.match(this.key(TIMES_KEY)));
    return hit ? hit.json().catch(() => ({})) : {};
  }

  async recordTime(source, ms) {
    const cache = await this.open().catch(() => null);
    if (!cache) return;
    const times = { ...(await this.times()), [source]: Math.round(ms) };
    await cache.put(this.key(TIMES_KEY), new Response(JSON.stringify(times), { headers: { "content-type": "application/json" } }));
  }

  /** Delete the snapshot caches of other builds: a new site version invalidates them. */
  async dropOthers() {
    if (!this.available) return;
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE_PREFIX) && name !== this.name) await caches.delete(name);
    }
  }
}

/** Remove a copy of the site's snapshot that failed (e.g. corrupt in the service worker's cache),
 * so the next load fetches it afresh from the site. */
export async function forgetCopies(url) {
  if (typeof caches === "undefined") return;
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    await cache.delete(url, { ignoreSearch: true });
  }
}
