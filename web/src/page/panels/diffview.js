// A unified diff drawn as lines, each marked by its kind (a file's header, a hunk, added, removed,
// unchanged) as well as its colour: the Files panel and the approval dialog show diffs so.

import { el } from "../ui/dom.js";

const KINDS = [
  ["+++", "file"],
  ["---", "file"],
  ["@@", "hunk"],
  ["+", "add"],
  ["-", "del"],
  ["\\", "hunk"],
];

/** The kind of one line of a unified diff: file, hunk, add, del or same. */
export function lineKind(line) {
  const found = KINDS.find(([start]) => line.startsWith(start));
  return found ? found[1] : "same";
}

/** Draw `diff` (unified diff text) into `pre`; with no diff, the sentence `empty`. */
export function drawDiff(pre, diff, empty = "No changes.") {
  if (!diff) {
    pre.dataset.empty = "true";
    pre.replaceChildren(el("span", { class: "diff-none" }, empty));
    return;
  }
  delete pre.dataset.empty;
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  pre.replaceChildren(...lines.map((line) => el("span", { class: `diff-${lineKind(line)}` }, `${line}\n`)));
}
