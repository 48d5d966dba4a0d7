// Python's output on its way to the page. A line goes at once (Python may block right after it,
// e.g. in time.sleep); past PER_WINDOW messages in WINDOW_MS, lines are gathered and sent
// together, so a print loop cannot flood the page; what was gathered goes before an event, a
// question or the run's end (flush). The rule is pure (`written`, `flushed`: tests/site/
// test_worker_output.py runs it in Node.js); an Output holds one worker's batch.

export const WINDOW_MS = 50;
export const PER_WINDOW = 20;
export const MOST = 16384; // characters gathered on one stream at the most: then they go

/** Nothing gathered, no window begun. */
export function empty() {
  return { stdout: "", stderr: "", windowStart: 0, sent: 0 };
}

/** `text` written to `stream` at `now` (ms): [the batch after, what to send now: [stream, text] each]. */
export function written(batch, stream, text, now) {
  const next = { ...batch, [stream]: batch[stream] + text };
  if (now - next.windowStart > WINDOW_MS) Object.assign(next, { windowStart: now, sent: 0 });
  return next.sent < PER_WINDOW || next[stream].length > MOST ? flushed(next) : [next, []];
}

/** Everything gathered: [the batch after, what to send now]. */
export function flushed(batch) {
  const next = { ...batch };
  const out = [];
  for (const stream of ["stdout", "stderr"]) {
    if (!next[stream]) continue;
    out.push([stream, next[stream]]);
    next[stream] = "";
    next.sent++;
  }
  return [next, out];
}

export class Output {
  /** @param {(stream: string, text: string) => void} send  one message to the page */
  constructor(send, now = () => performance.now()) {
    this.send = send;
    this.now = now;
    this.batch = empty();
  }

  write(stream, text) {
    this.take(written(this.batch, stream, text, this.now()));
  }

  flush() {
    this.take(flushed(this.batch));
  }

  take([batch, out]) {
    this.batch = batch;
    for (const [stream, text] of out) this.send(stream, text);
  }
}
