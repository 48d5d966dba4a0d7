// The lesson list in the sidebar: each lesson's number, title and mark (✓ passed, ✗ tried,
// • modified), the one on screen marked as the current page; lessons grouped under their
// chapter's heading (index.json's `chapter`), each group a list labelled by its heading.

import { isModified, loadProgress } from "../ui/storage.js";

const MARKS = { passed: "✓", "passed-before": "✓", tried: "✗", new: "" };

/** Draw the list again from the saved progress and edits; `currentSlug` is the lesson on screen. */
export function renderLessonList(root, lessons, currentSlug) {
  const progress = loadProgress();
  const items = lessons.map((lesson) => {
    const record = progress[lesson.slug] || {};
    const modified = isModified(lesson.slug);
    const state = record.passed
      ? "passed"
      : record.passedOnce
        ? "passed-before"
        : record.checks !== undefined
          ? "tried"
          : "new";
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
  });
  root.replaceChildren(...groupByChapter(lessons, items));
}

/** Consecutive lessons of one chapter as one item: its heading and a list labelled by it. */
function groupByChapter(lessons, items) {
  const out = [];
  let group = null;
  lessons.forEach((lesson, i) => {
    const chapter = lesson.chapter;
    if (!chapter) {
      group = null;
      out.push(items[i]);
      return;
    }
    if (!group || group.number !== chapter.number) {
      const item = document.createElement("li");
      item.className = "chapter";
      const heading = document.createElement("h2");
      heading.id = `chapter-${chapter.number}`;
      heading.className = "chapter-title";
      heading.textContent = chapter.title;
      const list = document.createElement("ol");
      list.className = "lessons";
      list.setAttribute("aria-labelledby", heading.id);
      item.append(heading, list);
      out.push(item);
      group = { number: chapter.number, list };
    }
    group.list.append(items[i]);
  });
  return out;
}
