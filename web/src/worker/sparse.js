// The inflated snapshot as the worker keeps it for the next visit (startup.js): its all-zero 64 KiB
// pages left out. About 40% of the 30 MiB snapshot is heap Python never touched, so a warm visit
// reads ~17.5 MiB from the cache instead of 30 (reading it is the longest step of a warm start).
// Layout: uint32 page count N, N uint32 page numbers in order, then those pages' bytes (the last
// page of the snapshot may be short). Little-endian, as every browser is.

const PAGE = 65536;

/** The parts of a Blob holding `bytes` (a Uint8Array, its length a multiple of 4) without its zero pages. */
export function packed(bytes) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  const pages = [];
  for (let page = 0; page * PAGE < bytes.byteLength; page++) {
    const end = Math.min(words.length, ((page + 1) * PAGE) >> 2);
    for (let i = (page * PAGE) >> 2; i < end; i++) {
      if (words[i] !== 0) {
        pages.push(page);
        break;
      }
    }
  }
  const head = new Uint32Array([pages.length, ...pages]);
  return [head, ...pages.map((page) => bytes.subarray(page * PAGE, Math.min(bytes.byteLength, (page + 1) * PAGE)))];
}

/** The snapshot's `size` bytes from what packed() made (an ArrayBuffer), or null when it does not fit. */
export function unpacked(buffer, size) {
  if (buffer.byteLength < 4) return null;
  const count = new Uint32Array(buffer, 0, 1)[0];
  let at = 4 + 4 * count;
  if (at > buffer.byteLength) return null;
  const pages = new Uint32Array(buffer, 4, count);
  const out = new Uint8Array(size);
  let last = -1;
  for (const page of pages) {
    const start = page * PAGE;
    const length = Math.min(PAGE, size - start);
    if (page <= last || length <= 0 || at + length > buffer.byteLength) return null;
    out.set(new Uint8Array(buffer, at, length), start);
    at += length;
    last = page;
  }
  return at === buffer.byteLength ? out : null;
}
