// The inflated snapshot as the worker keeps it for the next visit (inflated.js): its all-zero 64 KiB
// pages left out. About 40% of the 30 MiB snapshot is heap Python never touched, so a warm visit
// reads ~17.5 MiB instead of 30 (reading it was the longest step of a warm start).
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

/**
 * The snapshot's `size` bytes from a copy packed() made of `length` bytes, which `read(into, at)`
 * reads (into a Uint8Array or Uint32Array, from byte `at`; returns how many bytes it read): each run
 * of pages in one read, straight to its place. Null when the copy does not fit.
 */
export function unpackedBy(read, length, size) {
  const count = new Uint32Array(1);
  if (length < 4 || read(count, 0) !== 4) return null;
  const pages = new Uint32Array(count[0]);
  let at = 4 + 4 * pages.length;
  if (at > length || read(pages, 4) !== pages.byteLength) return null;
  const out = new Uint8Array(size);
  let last = -1;
  for (let first = 0; first < pages.length; ) {
    let end = first; // the run of pages that follow each other
    while (end + 1 < pages.length && pages[end + 1] === pages[end] + 1) end++;
    const start = pages[first] * PAGE;
    const stop = Math.min(size, (pages[end] + 1) * PAGE);
    if (pages[first] <= last || stop <= start) return null;
    if (at + (stop - start) > length || read(out.subarray(start, stop), at) !== stop - start) return null;
    at += stop - start;
    last = pages[end];
    first = end + 1;
  }
  return at === length ? out : null;
}
