// Code cells show their code at once, as plain text, and become CodeMirror editors a moment
// later. CodeMirror is most of the page's script: it loads after the lesson's prose is on screen
// (its own chunk, preloaded by index.html), and each editor is made in a task of its own, so the
// page never stops answering for long while a lesson with many cells opens.

import { el } from "./dom.js";

let editorModule = null; // import("./editor.js"), once asked for

/** CodeMirror's module (editor.js), loaded once. */
export function loadEditors() {
  editorModule = editorModule || import("./editor.js");
  return editorModule;
}

const queue = []; // editors still plain text, first come first made
let scheduled = false;

function schedule() {
  if (scheduled || !queue.length) return;
  scheduled = true;
  setTimeout(async () => {
    const editors = await loadEditors();
    scheduled = false;
    const next = queue.shift();
    if (next) next.upgrade(editors);
    schedule(); // the next one in a task of its own
  }, 0);
}

/** A code editor in `parent`: plain text first, a CodeMirror editor as soon as one is made. */
export class LazyEditor {
  /** @param {object} options  doc, readOnly, label, onChange(text), keys: as editor.js createEditor */
  constructor(parent, options) {
    this.options = options;
    this.doc = options.doc;
    this.view = null;
    this.placeholder = el("pre", { class: "code-placeholder", "aria-label": options.label || "Python code" }, this.doc);
    parent.append(this.placeholder);
    queue.push(this);
    schedule();
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

  upgrade({ createEditor }) {
    if (this.view || !this.placeholder.isConnected) return; // its lesson has left the screen
    this.view = createEditor(null, { ...this.options, doc: this.doc });
    this.placeholder.replaceWith(this.view.dom);
  }
}
