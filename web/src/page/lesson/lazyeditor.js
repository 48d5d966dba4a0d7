// Code cells show their code at once, as plain text, and become CodeMirror editors a moment
// later (once Python is up, when it starts with the page: holdEditors). CodeMirror is most of the
// page's script: it loads after the lesson's prose is on screen and Python is ready
// (its chunks preloaded by index.html), a package per task, and each editor is made in two tasks
// of its own (its state, then its view), the ones on screen first and the others when the page is
// idle: no task over 50 ms while a lesson opens (issue 23; bench/startup.py prints the longest).

import { el } from "../ui/dom.js";

// CodeMirror's packages, each before the ones that import it: an import() evaluates every module
// it reaches that has not run yet, so importing editor.js alone was one task of ~30 ms of a core
// (110 ms on a busy machine). Each is a chunk of its own (esbuild's splitting, scripts/build_site.py).
const PIECES = [
  () => import("@codemirror/state"),
  () => import("@codemirror/view"),
  () => import("@lezer/highlight"),
  () => import("@codemirror/language"),
  () => import("@codemirror/commands"),
  () => import("@codemirror/lang-python"),
  () => import("codemirror"),
  () => import("./editor.js"),
];

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
// Idle time, or half a second at most (a background tab, a page that is never idle).
const idleTask = () =>
  new Promise((resolve) =>
    self.requestIdleCallback ? requestIdleCallback(() => resolve(), { timeout: 500 }) : setTimeout(resolve, 50),
  );

let editorModule = null;

// While Python starts with the page, the editors wait for it: loading CodeMirror and making the
// editors is ~100 ms of the page's thread, and on two cores the page, Python's worker and its wasm
// compile share them (a warm start waited 439 ms for Python with editors made at once, 411 ms
// with them held: medians of 7 interleaved fresh profiles). Meanwhile the code is on screen as
// plain text; a cell the learner focuses or clicks becomes an editor at once, and the wait is
// HOLD_MAX at most (a Python that is slow or never comes).
const HOLD_MAX = 2000; // ms
let hold = null; // {done: Promise, release()} until Python is up

/** Make no editor until `until` settles (or HOLD_MAX, or the learner focuses a cell). */
export function holdEditors(until) {
  let release;
  const done = new Promise((resolve) => (release = resolve));
  Promise.resolve(until).then(release, release);
  setTimeout(release, HOLD_MAX);
  hold = { done, release };
}

/** CodeMirror's module (editor.js), loaded once, a package per task. */
export function loadEditors() {
  editorModule = editorModule || PIECES.reduce((before, piece) => before.then(nextTask).then(piece), Promise.resolve());
  return editorModule;
}

const waiting = new Set(); // editors still plain text, in the order they came
const ofPlaceholder = new WeakMap();
const seen =
  typeof IntersectionObserver === "function"
    ? new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            const editor = ofPlaceholder.get(entry.target);
            if (editor) editor.visible = entry.isIntersecting;
          }
        },
        { rootMargin: "200px" },
      )
    : null;
let working = false;

/** The next editor to make: the first one on screen, else (`any`) the first one waiting. */
function pick(any) {
  let first = null;
  for (const editor of waiting) {
    if (!editor.placeholder.isConnected)
      waiting.delete(editor); // its lesson has left the screen
    else if (editor.visible || !seen) return editor;
    else first = first || editor;
  }
  return any ? first : null;
}

/** Make the waiting editors, one at a time, until none waits. */
async function work() {
  if (working) return;
  working = true;
  try {
    if (hold) await hold.done;
    hold = null;
    const editors = await loadEditors();
    while (waiting.size) {
      await (pick(false) ? nextTask() : idleTask());
      const next = pick(true);
      if (next) await next.upgrade(editors);
    }
  } finally {
    working = false;
  }
}

/** A code editor in `parent`: plain text first, a CodeMirror editor as soon as one is made. */
export class LazyEditor {
  /** @param {object} options  doc, readOnly, label, onChange(text), keys: as editor.js createState */
  constructor(parent, options) {
    this.options = options;
    this.doc = options.doc;
    this.view = null;
    this.visible = false; // near the screen (IntersectionObserver): made first
    // Focusable: a long cell scrolls, and a scrolling region must be reachable from the keyboard
    // (WCAG 2.1.1); focusing it makes its editor next, and the editor takes the focus over.
    this.placeholder = el(
      "pre",
      { class: "code-placeholder", tabindex: "0", "aria-label": options.label || "Python code" },
      this.doc,
    );
    this.placeholder.addEventListener("focus", () => {
      this.visible = true;
      if (hold) hold.release();
    });
    parent.append(this.placeholder);
    ofPlaceholder.set(this.placeholder, this);
    if (seen) seen.observe(this.placeholder);
    waiting.add(this);
    work();
  }

  /** The code as it is now. */
  get text() {
    return this.view ? this.view.state.doc.toString() : this.doc;
  }

  /** Replace the code (as an edit: onChange hears it, as it does from the editor). */
  set text(value) {
    if (this.view) {
      this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: value } });
    } else if (value !== this.doc) {
      this.doc = value;
      this.placeholder.textContent = value;
      if (this.options.onChange) this.options.onChange(value);
    }
  }

  /** The editor's state in this task, its view in the next one. */
  async upgrade({ createState, createView }) {
    waiting.delete(this);
    if (seen) seen.unobserve(this.placeholder);
    const made = () => ({ doc: this.doc, state: createState({ ...this.options, doc: this.doc }) });
    let { doc, state } = made();
    await nextTask();
    if (!this.placeholder.isConnected) return; // its lesson has left the screen
    if (doc !== this.doc) ({ doc, state } = made()); // set meanwhile (Reset, a solution put in)
    this.view = createView(state);
    const focused = this.placeholder.ownerDocument.activeElement === this.placeholder;
    this.placeholder.replaceWith(this.view.dom);
    if (focused) this.view.focus();
  }
}
