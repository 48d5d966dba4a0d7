// What the learner takes from the lesson on screen: a file download (with the key taken out), the
// lesson as a Jupyter notebook with their edits, and the payload of a shared link (share.js).

import { toNotebook } from "./notebook.js";
import { redact } from "../../shared/redact.js";

/** Save `text` as a file named `name`; the run's key never goes in it. */
export function download(name, text, secret) {
  const url = URL.createObjectURL(new Blob([redact(text, secret)], { type: "application/json" }));
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * What a shared link holds: the lesson, the cells the learner changed, and the run shown.
 * @param {{view, lesson, meta} | null} screen  the lesson on screen (its LessonView, lessons/<slug>.json, index entry)
 * @param {object | null} run  the run the inspector shows, when it goes along
 */
export function sharePayload(screen, run) {
  if (!screen) return null;
  const { view, lesson, meta } = screen;
  const cells = {};
  view.cells().forEach((cell, index) => {
    if (cell.source !== lesson.cells[index].source && view.editors.has(index)) cells[index] = cell.source;
  });
  const payload = { v: 1, lesson: meta.slug, hash: meta.hash, cells };
  if (run) payload.run = run;
  return payload;
}

/** The lesson on screen as <slug>.ipynb, with the learner's code. */
export function downloadNotebook(screen, secret) {
  if (!screen) return;
  const sources = screen.view.cells().map((cell) => cell.source);
  download(`${screen.meta.slug}.ipynb`, JSON.stringify(toNotebook(screen.lesson, sources), null, 1), secret);
}
