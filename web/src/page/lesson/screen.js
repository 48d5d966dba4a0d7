// The lesson on screen: its view drawn (lessonview.js) with the note of a shared link's code kept
// aside, its title, its checks as last saved, its "modified" mark and the list that shows it.
// main.js draws a lesson when the session says it is shown (session.js `draw`).

import { LessonView } from "./lessonview.js";
import { loadProgress, swapAside, asideState, foreignSource } from "../ui/storage.js";
import { showForeign } from "./foreign.js";
import { showAside } from "./share.js";

export class LessonScreen {
  /**
   * @param {object} ui     {text, title, modified, scroller} elements, checks (panels/checks.js ChecksPanel)
   * @param {object} hooks  renderList(), clearPanels(), reopen(slug) (the aside note's swap), keys (editor keymap)
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.now = null; // {view, lesson, meta, ticket}
    this.modified = null; // the lesson's "modified" state as the list shows it
  }

  draw({ ticket, meta, lesson }) {
    const { ui, hooks } = this;
    document.title = `${meta.title} · Loop Lab`;
    ui.title.textContent = meta.title;
    this.modified = null;
    const drawnBefore = this.now !== null;
    const view = new LessonView(ui.text, lesson, meta, {
      onModified: (modified) => this.onModified(modified),
      keys: hooks.keys,
    });
    this.now = { view, lesson, meta, ticket };
    const aside = asideState(meta.slug);
    if (aside)
      showAside(ui.text, {
        shared: aside.shared,
        onSwap: () => {
          swapAside(meta.slug);
          hooks.reopen(meta.slug);
        },
      });
    const from = foreignSource(meta.slug);
    if (from) showForeign(ui.text, { from, onChoose: (mode) => hooks.choose(meta.slug, mode) });
    this.onModified(view.modified()); // draws the list, with this lesson marked current
    hooks.clearPanels();
    ui.checks.saved(loadProgress()[meta.slug]);
    if (drawnBefore) {
      // the page's first lesson is at the top already: no forced layout for it
      ui.text.scrollTop = 0;
      ui.scroller.scrollTop = 0;
    }
    ui.text.dataset.slug = meta.slug;
    // once every cell is drawn (lessonview.js draws them in short tasks): what tests wait for
    view.done.then(
      (drawn) => drawn && this.now && this.now.view === view && (document.body.dataset.lesson = meta.slug),
    );
    if (!performance.getEntriesByName("looplab:prose").length) {
      requestAnimationFrame(() => performance.mark("looplab:prose")); // first prose on screen (bench/startup.py)
    }
  }

  // Called on every edit: the list is drawn again only when the lesson's modified state changes.
  onModified(modified) {
    this.ui.modified.hidden = !modified;
    if (modified === this.modified) return;
    this.modified = modified;
    this.hooks.renderList();
  }

  /** Reset (the button): the lesson's original code, after the learner confirms. */
  reset() {
    if (this.now && confirm("Reset this lesson to its original code? Your edits to it will be lost.")) {
      this.now.view.reset();
      this.hooks.renderList();
    }
  }
}
