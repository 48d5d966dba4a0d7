// The lesson list in the sidebar: each lesson's number, title and mark (✓ passed, ✗ tried,
// • modified), the one on screen marked as the current page; under the title its place ("★ core",
// or "deepens 04" and what it adds) and its time estimate; lessons grouped under their chapter's
// heading (index.json's `chapter`), each group a list labelled by its heading; the core path's total
// first (index.json's `estimate`).

import { isModified, loadProgress } from "../ui/storage.js";
import { CORE_MARK, pathSummary, placeOf, sayMinutes } from "./corepath.js";

const MARKS = { passed: "✓", "passed-before": "✓", tried: "✗", new: "" };

/** Draw the list again from the saved progress and edits; `currentSlug` is the lesson on screen. */
export function renderLessonList(root, lessons, currentSlug, estimate = null) {
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
    const about = aboutLesson(lesson);
    if (about) link.append(about);
    if (lesson.slug === currentSlug) link.setAttribute("aria-current", "page");
    item.append(link);
    return item;
  });
  const summary = pathSummary(estimate);
  const head = [];
  if (summary) {
    const item = document.createElement("li");
    item.className = "path-summary";
    item.dataset.role = "path-summary";
    item.textContent = `${CORE_MARK} ${summary}`;
    head.push(item);
  }
  root.replaceChildren(...head, ...groupByChapter(lessons, items));
}

/** The line under a lesson's title: "★ core · 45 min", or "deepens 04 · 50 min" and what it adds. */
function aboutLesson(lesson) {
  const place = placeOf(lesson);
  if (!place && !lesson.minutes) return null;
  const about = document.createElement("span");
  about.className = "about";
  about.dataset.role = "lesson-about";
  about.dataset.path = place ? (place.core ? "core" : "deepening") : "";
  if (place && place.core) {
    const mark = document.createElement("span");
    mark.className = "core-mark";
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = `${CORE_MARK} `;
    about.append(mark);
  }
  const words = [place ? place.label : "", lesson.minutes ? sayMinutes(lesson.minutes) : ""].filter(Boolean);
  about.append(words.join(" · "));
  if (place && place.adds) {
    const adds = document.createElement("span");
    adds.className = "adds";
    adds.textContent = `adds ${place.adds}`;
    about.append(adds);
  }
  return about;
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
