// One lesson on the page: prose cells rendered (markdown-it, then DOMPurify), code cells in
// editors whose edits are saved as you type, check cells shown read-only, an exercise's hints
// revealed one at a time and its solution on request, predict questions answered by a button.
// Editors are plain text until CodeMirror has loaded (lazyeditor.js): the prose comes first.

import MarkdownIt from "markdown-it";
import DOMPurify from "dompurify";
import { LazyEditor } from "./lazyeditor.js";

/** How long one task may draw a lesson's cells (ms): well under the 50 ms of a long task, also on a
 * busy machine (the first draw's task does more: the list, the panels, the chat tab). */
export const RENDER_BUDGET_MS = 8;
import { fittingEdits, saveEdit, clearEdits } from "../ui/storage.js";
import { el } from "../ui/dom.js";

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: true });

export function renderMarkdown(text) {
  const html = DOMPurify.sanitize(markdown.render(text));
  const box = document.createElement("div");
  box.className = "prose";
  box.innerHTML = html;
  for (const link of box.querySelectorAll("a[href]")) {
    if (!link.getAttribute("href").startsWith("#")) {
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
  }
  return box;
}

/** The prose blocks index.html holds for lesson `slug` (scripts/prerender.mjs), by cell index: none
 * when it was written for another lesson. */
function prerenderedProse(root, slug) {
  const blocks = new Map();
  if (document.documentElement.dataset.prerendered !== slug) return blocks;
  for (const block of root.querySelectorAll(":scope > .prerendered > .prose[data-cell]")) {
    blocks.set(Number(block.dataset.cell), block);
    block.removeAttribute("data-cell"); // as renderMarkdown's block
  }
  return blocks;
}

/** A choice's markdown as inline nodes (a choice is one line: `code`, *emphasis*). */
function inline(text) {
  const box = document.createElement("span");
  box.innerHTML = DOMPurify.sanitize(markdown.renderInline(text));
  return box;
}

export class LessonView {
  /**
   * @param {HTMLElement} root   the lesson-text element
   * @param {object} lesson      lessons/<slug>.json: {slug, title, cells}
   * @param {object} meta        the lesson's entry in lessons/index.json (hash ...)
   * @param {object} hooks       onModified(bool), keys (editor keymap)
   */
  constructor(root, lesson, meta, hooks) {
    this.root = root;
    this.lesson = lesson;
    this.meta = meta;
    this.hooks = hooks;
    this.editors = new Map(); // cell index -> LazyEditor (editable code and exercise cells)
    this.render();
  }

  render() {
    // the prose the build wrote into the page for this lesson (scripts/prerender.mjs), by cell: taken
    // as it is, not rendered again (markdown and sanitising were the first draw's longest part)
    this.prerendered = prerenderedProse(this.root, this.lesson.slug);
    this.root.replaceChildren();
    const { cells: edits, stale } = fittingEdits(this.lesson.slug, this.lesson, this.meta.hash);
    this.edits = edits;
    if (stale) {
      this.root.append(
        el(
          "p",
          { class: "stale-note", role: "note", "data-role": "stale-edits" },
          `This lesson changed since you edited it: ${stale} earlier edit${stale > 1 ? "s" : ""} no longer ` +
            "fit its cells, so the lesson's code is shown there. Nothing is lost: they are kept in Export progress.",
        ),
      );
    }
    this.timed = false; // the first prose block's paint time, for bench/startup.py (Element Timing API)
    this.next = 0; // the first cell not drawn yet
    this.mark = el("span", { hidden: "" }); // gone from the root when another lesson is drawn there
    this.root.append(this.mark);
    // The cells in tasks of RENDER_BUDGET_MS each, the first ones at once: no long task however long
    // the lesson, and a Reset in between draws the rest first (finish).
    this.done = new Promise((resolve) => {
      const more = () => {
        if (!this.mark.isConnected) return resolve(false);
        this.drawCells(performance.now() + RENDER_BUDGET_MS);
        if (this.next < this.lesson.cells.length) setTimeout(more, 0);
        else resolve(true);
      };
      this.finished = resolve;
      more();
    });
  }

  /** Draw cells from `this.next` on, until `deadline` (performance.now()) has passed: one at least. */
  drawCells(deadline = Infinity) {
    const cells = this.lesson.cells;
    do {
      if (this.next >= cells.length) return;
      const index = this.next++;
      const cell = cells[index];
      if (cell.role === "markdown") {
        const prose = this.prerendered.get(index) || renderMarkdown(cell.source);
        if (!this.timed && prose.firstElementChild)
          prose.firstElementChild.setAttribute("elementtiming", "looplab-prose");
        this.timed = true;
        this.root.append(prose);
      } else if (cell.editable) {
        this.root.append(this.codeCell(cell, index, this.edits[index]));
      } else if (cell.role === "check") {
        this.root.append(this.checkCell(cell, index));
      } else if (cell.role === "solution") {
        this.root.append(this.solutionCell(cell, index));
      } else if (cell.role === "predict" && cell.prediction) {
        this.root.append(this.predictCell(cell.prediction, index));
      }
      // hint cells are drawn with the solution they come before (solutionCell)
    } while (performance.now() < deadline);
  }

  /** Every cell drawn now (what a run, a share or Reset needs). */
  finish() {
    if (this.next < this.lesson.cells.length && this.mark.isConnected) this.drawCells();
    if (this.next >= this.lesson.cells.length) this.finished(true);
  }

  codeCell(cell, index, edited) {
    const label = cell.role === "exercise" ? "Exercise: your code" : `Code cell ${index + 1}`;
    const box = el("section", {
      class: `cell cell-${cell.role}`,
      "data-testid": "editor",
      "data-cell": index,
      "aria-label": label,
    });
    const head = el(
      "div",
      { class: "cell-head" },
      el("span", { class: "cell-kind" }, cell.role === "exercise" ? "Exercise — your turn" : "Code"),
      el("span", { class: "cell-modified", hidden: "" }, "modified"),
    );
    box.append(head);
    const mount = el("div", { class: "cell-editor" });
    box.append(mount);
    const text = edited ?? cell.source;
    const editor = new LazyEditor(mount, {
      doc: text,
      label,
      keys: this.hooks.keys || [],
      onChange: (value) => {
        saveEdit(this.lesson.slug, this.meta.hash, index, value, cell.source);
        this.markCell(box, value !== cell.source);
        this.hooks.onModified(this.modified());
      },
    });
    this.editors.set(index, editor);
    this.markCell(box, text !== cell.source);
    return box;
  }

  markCell(box, modified) {
    box.classList.toggle("is-modified", modified);
    box.querySelector(".cell-modified").hidden = !modified;
  }

  checkCell(cell, index) {
    const details = el("details", { class: "cell cell-check" }, el("summary", {}, "The checks this lesson runs"));
    const mount = el("div", { class: "cell-editor" });
    details.append(mount);
    details.addEventListener(
      "toggle",
      () => {
        if (details.open && !mount.firstChild)
          new LazyEditor(mount, { doc: cell.source, readOnly: true, label: `Checks (cell ${index + 1})` });
      },
      { once: false },
    );
    return details;
  }

  solutionCell(cell, index) {
    const exercise = [...this.editors.keys()].filter((i) => i < index).pop();
    const box = el("div", { class: "cell cell-solution" });
    const mount = el("div", { class: "cell-editor", hidden: "" });
    const use = el("button", { type: "button", class: "ghost", hidden: "" }, "Put the solution in my code");
    const show = el("button", { type: "button", class: "ghost", "data-testid": "show-solution" }, "Show solution");
    show.addEventListener("click", () => {
      const open = mount.hidden;
      mount.hidden = !open;
      use.hidden = !open || exercise === undefined;
      show.textContent = open ? "Hide solution" : "Show solution";
      if (open && !mount.firstChild) new LazyEditor(mount, { doc: cell.source, readOnly: true, label: "Solution" });
    });
    use.addEventListener("click", () => {
      const editor = this.editors.get(exercise);
      if (editor) editor.text = cell.source;
    });
    const hints = this.hintsBefore(index);
    box.append(el("div", { class: "cell-actions" }, hints ? hints.button : null, show, use));
    if (hints) box.append(hints.list);
    box.append(mount);
    return box;
  }

  /** The hint cells just before a solution: a button that reveals them one at a time, and their list. */
  hintsBefore(index) {
    const texts = [];
    for (let i = index - 1; i >= 0 && this.lesson.cells[i].role === "hint"; i--)
      texts.unshift(this.lesson.cells[i].source);
    if (!texts.length) return null;
    const list = el("ol", { class: "hints", "aria-label": "Hints", hidden: "" });
    const button = el("button", { type: "button", class: "ghost", "data-testid": "show-hint" });
    const label = () => {
      const shown = list.children.length;
      button.textContent = shown ? `Next hint (${shown + 1} of ${texts.length})` : `Show a hint (1 of ${texts.length})`;
    };
    button.addEventListener("click", () => {
      const hint = el(
        "li",
        { class: "hint", "data-testid": "hint", tabindex: "-1" },
        renderMarkdown(texts[list.children.length]),
      );
      list.append(hint);
      list.hidden = false;
      hint.focus();
      if (list.children.length === texts.length) button.hidden = true;
      else label();
    });
    label();
    return { button, list };
  }

  /** Predict, then run: the question, one button per choice; a choice shows whether it was right, and why. */
  predictCell({ question, choices, answer, why }, index) {
    const box = el("section", {
      class: "cell cell-predict",
      "data-testid": "predict",
      "data-cell": index,
      "aria-label": "Predict before you run",
    });
    box.append(el("div", { class: "cell-head" }, el("span", { class: "cell-kind" }, "Predict — then run")));
    box.append(renderMarkdown(question));
    const verdict = el("div", { class: "predict-verdict", "aria-live": "polite" });
    const group = el("div", { class: "predict-choices", role: "group", "aria-label": "Your prediction" });
    choices.forEach((choice, i) => {
      const button = el("button", {
        type: "button",
        class: "ghost predict-choice",
        "data-testid": "predict-choice",
        "aria-pressed": "false",
      });
      button.append(inline(choice));
      button.addEventListener("click", () => {
        for (const other of group.children) {
          other.setAttribute("aria-pressed", String(other === button));
          other.dataset.right = String(other === group.children[answer]);
        }
        box.dataset.answered = i === answer ? "right" : "wrong";
        const head = i === answer ? "Right." : `Not quite: the answer is ${choices[answer].replace(/`/g, "")}.`;
        verdict.replaceChildren(el("p", { class: "predict-head" }, head), why ? renderMarkdown(why) : "");
      });
      group.append(button);
    });
    box.append(group, verdict);
    return box;
  }

  /** The cells as the learner has them now: what a run sends to Python. A cell not drawn yet has its
   * saved edit, as its editor will: nothing is drawn ahead of its task (the chat tab asks on every draw). */
  cells() {
    return this.lesson.cells.map((cell, index) => {
      const editor = this.editors.get(index);
      return { kind: cell.kind, tags: cell.tags, source: editor ? editor.text : (this.edits[index] ?? cell.source) };
    });
  }

  modified() {
    // a cell not drawn yet is modified when a saved edit of it differs
    return this.lesson.cells.some((cell, index) => {
      const editor = this.editors.get(index);
      const text = editor ? editor.text : index >= this.next ? this.edits[index] : undefined;
      return text !== undefined && text !== cell.source;
    });
  }

  /** Back to the lesson's own code; the saved edits go too. */
  reset() {
    this.finish();
    this.editors.forEach((editor, index) => (editor.text = this.lesson.cells[index].source));
    clearEdits(this.lesson.slug); // after the new text: its change listeners save each cell once more
    this.hooks.onModified(false);
  }
}
