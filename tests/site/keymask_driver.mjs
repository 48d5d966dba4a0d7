// web/src/shared/keymask.js with bytes as JSON arrays of numbers, for tests/site/test_keymask.py.
import { bytesOf, maskBytes, maskText, pieceMasker } from "../../web/src/shared/keymask.js";

/** Each piece of a body as the masker hands it on, then what it held back (the last item). */
export function pieces(chunks, key, mask) {
  const masker = pieceMasker(bytesOf(key), bytesOf(mask));
  return [...chunks.map((chunk) => Array.from(masker.piece(Uint8Array.from(chunk)))), Array.from(masker.end())];
}

export function whole(bytes, key, mask) {
  return Array.from(maskBytes(Uint8Array.from(bytes), bytesOf(key), bytesOf(mask)));
}

export { maskText };
