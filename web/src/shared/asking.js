// Python asks the page and waits: may this tool run (an approval), what does the local model
// reply. Python runs in a worker that takes no messages while Python runs, so the question goes
// to the page as an `ask` message and the worker sleeps on a SharedArrayBuffer (the "answer
// buffer") until the page writes the answer there. That needs a cross-origin isolated page; Stop
// still works while Python waits (the worker looks at the interrupt buffer every WAIT_SLICE_MS).
//
// The answer buffer: Int32 [0] state (0 waiting, 1 answered), Int32 [1] the answer's length in
// bytes, then the answer as UTF-8 JSON text (at most ANSWER_BYTES).

export const ANSWER_BYTES = 1 << 20;
export const WAIT_SLICE_MS = 50;

/** A new answer buffer for the page to share with the worker (null when the page is not isolated). */
export function answerBuffer(isolated) {
  return isolated ? new SharedArrayBuffer(8 + ANSWER_BYTES) : null;
}

/** The page's side: write an answer (a JSON-able object) and wake the waiting worker. */
export function writeAnswer(buffer, answer) {
  let bytes = new TextEncoder().encode(JSON.stringify(answer));
  if (bytes.length > ANSWER_BYTES) {
    bytes = new TextEncoder().encode(
      JSON.stringify({
        unavailable: `the page's answer was ${bytes.length} bytes, over the ${ANSWER_BYTES} the answer buffer holds`,
      }),
    );
  }
  const head = new Int32Array(buffer, 0, 2);
  new Uint8Array(buffer, 8, bytes.length).set(bytes);
  Atomics.store(head, 1, bytes.length);
  Atomics.store(head, 0, 1);
  Atomics.notify(head, 0);
}

/** The worker's side: clear the buffer before a question is sent. */
export function clearAnswer(buffer) {
  Atomics.store(new Int32Array(buffer, 0, 2), 0, 0);
}

/**
 * The worker's side: sleep until the page answers; `interrupted()` is called between slices and
 * may throw (Stop). Returns the answer's JSON text.
 */
export function waitForAnswer(buffer, interrupted) {
  const head = new Int32Array(buffer, 0, 2);
  while (Atomics.load(head, 0) === 0) {
    Atomics.wait(head, 0, 0, WAIT_SLICE_MS);
    interrupted();
  }
  const length = Atomics.load(head, 1);
  // TextDecoder refuses views of shared memory: copy the bytes out first.
  return new TextDecoder().decode(new Uint8Array(buffer, 8, length).slice());
}

/** Base64 of `bytes`: bytes (a request's body, an answer's) go through the answer buffer's JSON as text. */
export function base64Of(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The bytes of base64 `text`. */
export function bytesOfBase64(text) {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}
