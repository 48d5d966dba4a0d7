// The Output panel: the learner's stdout and stderr, tracebacks and notes, drawn without letting a
// print loop stall the page.

import { el } from "../ui/dom.js";

const MAX_OUTPUT = 200_000; // characters kept in the console; a print loop must not eat the page

// A print loop must not stall the page. Text is queued as it arrives and drawn at most SLICE
// characters a frame, into boxes of about CHUNK characters (class out-chunk, inline-block): the
// browser then lays out the newest box, not the whole console, so each frame stays short whether the
// text is 200,000 short lines or one long line (bench/flood.py measures it).
const SLICE = 8_000;
const CHUNK = 4_000;

export class Output {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.root.replaceChildren();
    this.queue = [];
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.size = 0;
    this.truncated = false;
    this.chunk = null; // the box being filled, its length, and whether it ends with a line break
    this.chunkSize = 0;
    this.chunkEndsLine = false;
    this.root.dataset.empty = "true";
    delete this.root.dataset.drawing;
  }

  /** Queue text; it is drawn on the next frames, so many small writes cost one layout. */
  write(text, kind = "stdout") {
    if (this.truncated) return;
    if (this.size + text.length > MAX_OUTPUT) {
      text = text.slice(0, Math.max(0, MAX_OUTPUT - this.size));
      this.truncated = true;
    }
    this.size += text.length;
    this.enqueue(text, kind);
    if (this.truncated) this.enqueue("\n… output cut here: more than 200,000 characters\n", "note");
  }

  /** A line from the page itself (a stop, a crash): after everything written before it, at once
   * when nothing is waiting to be drawn. */
  note(text) {
    const waiting = this.queue.length > 0;
    this.enqueue(text + "\n", "note");
    if (!waiting) {
      cancelAnimationFrame(this.frame);
      this.draw();
    }
  }

  /** Draw everything queued now, then put `element` after it (an answer field: stdin.js); text
   * written later goes after the element. */
  place(element) {
    cancelAnimationFrame(this.frame);
    while (this.queue.length) this.draw();
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    delete this.root.dataset.drawing;
    this.root.append(element);
    delete this.root.dataset.empty;
    this.chunk = null;
    this.root.scrollTop = this.root.scrollHeight;
  }

  enqueue(text, kind) {
    const last = this.queue[this.queue.length - 1];
    if (last && last.kind === kind && kind !== "note") last.text += text;
    else this.queue.push({ kind, text });
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
    this.root.dataset.drawing = "true"; // text waits for a frame (tests wait for it to go)
  }

  draw() {
    this.frame = 0;
    const root = this.root;
    // Follow the end only if the reader is there: scrolling up to read stops the following.
    const following = root.scrollHeight - root.scrollTop - root.clientHeight < 8;
    let budget = SLICE;
    while (budget > 0 && this.queue.length) {
      const item = this.queue[0];
      const text = item.text.length > budget ? item.text.slice(0, budget) : item.text;
      if (text.length === item.text.length) this.queue.shift();
      else item.text = item.text.slice(text.length);
      this.append(text, item.kind);
      budget -= text.length;
    }
    delete root.dataset.empty;
    if (following) root.scrollTop = root.scrollHeight;
    if (this.queue.length) this.frame = requestAnimationFrame(() => this.draw());
    else delete root.dataset.drawing;
  }

  /** Into the boxes: a new box once the last one holds CHUNK characters and ends a line, or holds
   * twice that (a line that long is then continued in the next box). */
  append(text, kind) {
    while (text) {
      if (!this.chunk || (this.chunkSize >= CHUNK && this.chunkEndsLine) || this.chunkSize >= 2 * CHUNK) {
        this.chunk = el("span", { class: "out-chunk" });
        this.root.append(this.chunk);
        this.chunkSize = 0;
      }
      let end = Math.min(text.length, 2 * CHUNK - this.chunkSize);
      if (this.chunkSize + end > CHUNK) {
        const line = text.indexOf("\n", Math.max(0, CHUNK - this.chunkSize - 1));
        if (line !== -1) end = Math.min(end, line + 1);
      }
      const piece = end === text.length ? text : text.slice(0, end);
      text = end === text.length ? "" : text.slice(end);
      const last = this.chunk.lastElementChild;
      if (last && last.dataset.kind === kind && kind !== "note") last.append(piece);
      else this.chunk.append(el("span", { class: `out-${kind}`, "data-kind": kind }, piece));
      this.chunkSize += piece.length;
      this.chunkEndsLine = piece.endsWith("\n");
    }
  }
}
