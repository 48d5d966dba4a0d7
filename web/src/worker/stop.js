// Stop in the worker (the rule both sides keep: shared/stop.js). Pyodide raises KeyboardInterrupt
// where Python runs when the page's interrupt buffer says so. While Python waits on a Promise (a
// stream's next piece: transport.js) Pyodide does not look, so the wait looks (`take`) with
// Pyodide's own look off (`hush`) until Python is back (`hear`); while Python waits for the page's
// answer (asking.js) `raiseIfPressed` raises it.

import { pressed, take } from "../shared/stop.js";

export class Stop {
  /** @param {SharedArrayBuffer | null} buffer  the page's interrupt buffer (none: not isolated) */
  constructor(buffer) {
    this.buffer = buffer ? new Uint8Array(buffer) : null;
    this.pyodide = null;
  }

  /** Whether Stop can interrupt Python here (else the page ends the worker). */
  get possible() {
    return this.buffer !== null;
  }

  /** Pyodide looks at the buffer from now on. */
  listen(pyodide) {
    this.pyodide = pyodide;
    this.hear();
  }

  take() {
    return take(this.buffer);
  }

  hush() {
    if (this.buffer) this.pyodide.setInterruptBuffer(undefined);
  }

  hear() {
    if (this.buffer) this.pyodide.setInterruptBuffer(this.buffer);
  }

  raiseIfPressed() {
    if (pressed(this.buffer)) this.pyodide.checkInterrupt(); // throws KeyboardInterrupt into Python
  }
}
