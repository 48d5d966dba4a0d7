// The learner's key written out of what Python reads: the worker's transport (transport.js) passes
// every answer's headers and body through here before Python gets them, so an endpoint that echoes
// the key (in an error, a header, a debugging proxy's page) never hands it to Python.
//
// The key reaches these functions as an argument, from transport.js's closure; they keep nothing.
// Python shares this realm and can replace any built-in, so they call only what was taken at module
// evaluation, before Python exists (as transport.js and keyscope.js do), read typed arrays by index,
// and never put the key into an array or an object a prototype's setter could watch. No DOM: Node
// runs this in the tests (tests/site/test_keymask.py).

const { apply } = Reflect;
const { indexOf, slice } = String.prototype;
const { min } = Math;
const Bytes = Uint8Array;
const LENGTH = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length").get;
const size = (bytes) => apply(LENGTH, bytes, []); // not bytes.length: a getter Python could replace
const encoder = new TextEncoder();
const { encode } = TextEncoder.prototype;

/** A key shorter than this is not masked (it would match too much): maskKey's rule too. */
export const SHORTEST = 4;

/** The UTF-8 bytes of `text` (the key, or the mask that replaces it). */
export function bytesOf(text) {
  return apply(encode, encoder, [typeof text === "string" ? text : ""]);
}

/** `text` with every `key` written as `mask`. */
export function maskText(text, key, mask) {
  if (typeof text !== "string" || typeof key !== "string" || key.length < SHORTEST) return text;
  let out = "";
  let from = 0;
  for (;;) {
    const at = apply(indexOf, text, [key, from]);
    if (at < 0) break;
    out += apply(slice, text, [from, at]) + mask;
    from = at + key.length;
  }
  return from === 0 ? text : out + apply(slice, text, [from]);
}

function matchAt(bytes, at, key) {
  if (at + size(key) > size(bytes)) return false;
  for (let i = 0; i < size(key); i++) if (bytes[at + i] !== key[i]) return false;
  return true;
}

/** `bytes` (a Uint8Array) with every run of `key` (its UTF-8 bytes) written as `mask`'s bytes; the
 * same array when the key is not in it. */
export function maskBytes(bytes, key, mask) {
  if (size(key) < SHORTEST || size(bytes) < size(key)) return bytes;
  let count = 0;
  for (let at = 0; at <= size(bytes) - size(key); at++) {
    if (matchAt(bytes, at, key)) {
      count++;
      at += size(key) - 1;
    }
  }
  if (count === 0) return bytes;
  const out = new Bytes(size(bytes) + count * (size(mask) - size(key)));
  let to = 0;
  for (let at = 0; at < size(bytes); ) {
    if (matchAt(bytes, at, key)) {
      for (let i = 0; i < size(mask); i++) out[to++] = mask[i];
      at += size(key);
    } else {
      out[to++] = bytes[at++];
    }
  }
  return out;
}

/** How many bytes at the end of `bytes` begin the key (fewer than all of it): they wait for the next piece. */
function startOfKey(bytes, key) {
  const total = size(bytes);
  for (let count = min(size(key) - 1, total); count > 0; count--) {
    let begins = true;
    for (let i = 0; i < count && begins; i++) begins = bytes[total - count + i] === key[i];
    if (begins) return count;
  }
  return 0;
}

function joined(a, b) {
  if (size(a) === 0) return b;
  const out = new Bytes(size(a) + size(b));
  for (let i = 0; i < size(a); i++) out[i] = a[i];
  for (let i = 0; i < size(b); i++) out[size(a) + i] = b[i];
  return out;
}

function part(bytes, from, to) {
  const out = new Bytes(to - from);
  for (let i = from; i < to; i++) out[i - from] = bytes[i];
  return out;
}

/**
 * A body read piece by piece: `piece(bytes)` gives what may go to Python now — masked, without
 * the last bytes when they begin the key (a key split between two pieces is masked whole) — and
 * `end()` what was held back. Each piece is a fresh Uint8Array.
 */
export function pieceMasker(key, mask) {
  let held = new Bytes(0);
  return {
    piece(bytes) {
      if (size(key) < SHORTEST) return bytes;
      const masked = maskBytes(joined(held, bytes), key, mask);
      const wait = startOfKey(masked, key);
      held = part(masked, size(masked) - wait, size(masked));
      return part(masked, 0, size(masked) - wait);
    },
    end() {
      const rest = held;
      held = new Bytes(0);
      return rest;
    },
  };
}
