// The lesson list in the sidebar: each lesson's number, title and mark (✓ passed, ✗ tried,
// • modified), the one on screen marked as the current page.

import { isModified, loadProgress } from "./storage.js";

const MARKS = { passed: "✓", "passed-before": "✓", tried: "✗", new: "" };

/** Draw the list again from the saved progress and edits; `currentSlug` is the lesson on screen. */
export function renderLessonList(root, lessons, currentSlug) {
  const progress = loadProgress();
  root.replaceChildren(...lessons.map((lesson) => {
    const record = progress[lesson.slug] || {};
    const modified = isModified(lesson.slug);
    const state = record.passed ? "passed" : record.passedOnce ? "passed-before" : record.checks !== undefined ? "tried" : "new";
    const item = document.createElement("li");
    item.dataset.slug = lesson.slug;
    item.dataset.state = state;
    const link = document.createElement("a");
    link.href = `#/${lesson.slug}`;
    link.innerHTML = `<span class="num"></span><span class="name"></span><span class="mark" aria-hidden="true"></span>`;
    link.querySelector(".num").textContent = String(lesson.number);
    link.querySelector(".name").textContent = lesson.title;
    link.querySelector(".mark").textContent = MARKS[state] + (modified ? " •" : "");
    link.title = `${lesson.title}${state === "passed" ? " — all checks passed" : state === "tried" ? " — not all checks pass yet" : ""}${modified ? " — modified" : ""}`;
    if (lesson.slug === currentSlug) link.setAttribute("aria-current", "page");
    item.append(link);
    return item;
  }));
}
