// The course map (#map): the chapters, each lesson's state (data-testid "lesson-state", data-state
// new|started|done|changed), the parts the learner builds and where each is used again, what to do
// next, and "Export a record" of the course or a chapter. Printable (site.css's print rules). Each
// lesson says its place (★ core, or the core lesson it deepens and what it adds) and its estimate; the
// summary gives the core path's total and the estimate's rule (index.json's, lesson/corepath.js).

import { el } from "../ui/dom.js";
import { CORE_MARK, pathSummary, placeOf, sayMinutes } from "../lesson/corepath.js";
import { PARTS, chapters, lessonState, nextLesson } from "./progress.js";

const SAYS = { new: "not started", started: "started", done: "all ✓", changed: "✓ once, edited since" };
const MARKS = { new: "○", started: "◐", done: "✓", changed: "✓•" };

export const PROVES =
  "A record holds your code and your checks' results. Anyone can open it in any copy of Loop Lab " +
  "(Check a record) or run `looplab verify RECORD`: every lesson's checks run again on your code. " +
  "It proves the code in it passes the lessons' checks. It does not prove who wrote the code: " +
  "nothing is signed, so a record can be copied or written by anyone; code identical to a lesson's " +
  "reference solution is marked as such, a small change hides that. The recorded code runs in one " +
  "Python with the checks, so code written to fool them could: the code is there to be read.";

/**
 * Draw the map into `root`.
 * @param {object} parts  {lessons and estimate (index.json's), stateOf(slug), progress, usedIn: a Promise of {lesson number:
 *                        [numbers]} (the parts' list is drawn again when it comes; nothing else is),
 *                        exportRecord({name, scope}) (a Promise)}
 */
export function renderMap(root, { lessons, estimate, stateOf, progress, usedIn, exportRecord }) {
  const done = lessons.filter((m) => stateOf(m.slug) === "done").length;
  const exercises = exercisesDone(lessons, stateOf);
  const next = nextLesson(lessons, stateOf);
  const byNumber = Object.fromEntries(lessons.map((m) => [m.number, m]));
  const groups = chapters(lessons).map((chapter) => {
    const id = `map-chapter-${chapter.number}`;
    const items = chapter.lessons.map((meta) => {
      const state = stateOf(meta.slug);
      const record = progress[meta.slug];
      const checks = record ? `${record.checks} of ${record.total} checks ✓` : `${meta.checks} checks`;
      const own = meta.exercises ? ` · ${exercisesDone([meta], stateOf).text}` : "";
      const place = placeOf(meta);
      const time = meta.minutes ? ` · about ${sayMinutes(meta.minutes)}` : "";
      return el(
        "li",
        {
          "data-testid": "lesson-state",
          "data-slug": meta.slug,
          "data-state": state,
          "data-path": place ? (place.core ? "core" : "deepening") : "",
        },
        el("span", { class: "map-mark", "aria-hidden": "true" }, MARKS[state]),
        " ",
        el("a", { href: `#/${meta.slug}` }, `${meta.number} · ${meta.title}`),
        " ",
        place && place.core
          ? el("span", { class: "map-core" }, el("span", { "aria-hidden": "true" }, `${CORE_MARK} `), "core")
          : "",
        place && !place.core ? el("span", { class: "map-deepens" }, place.label) : "",
        " ",
        el("span", { class: "muted" }, `— ${SAYS[state]}${own} · ${checks}${time}`),
        place && place.core && place.why ? el("span", { class: "map-why" }, place.why) : "",
        place && place.adds ? el("span", { class: "map-adds" }, `adds ${place.adds}`) : "",
      );
    });
    return el(
      "section",
      { class: "map-chapter", "aria-labelledby": id },
      el("h2", { id }, chapter.title),
      el("p", { class: "muted", "data-role": "map-chapter-exercises" }, exercisesDone(chapter.lessons, stateOf).text),
      el("ol", { class: "map-lessons" }, ...items),
    );
  });
  const partItems = (found) =>
    PARTS.filter((p) => byNumber[p.lesson]).map((part) => {
      const meta = byNumber[part.lesson];
      const again = (found[part.lesson] || []).filter((n) => byNumber[n]);
      return el(
        "li",
        {},
        el("strong", {}, part.name),
        " — built in ",
        el("a", { href: `#/${meta.slug}` }, meta.number),
        ` (${SAYS[stateOf(meta.slug)]})`,
        again.length ? ` · used again with mine(${Number.parseInt(part.lesson, 10)}) in ${again.join(", ")}` : "",
      );
    });
  const parts = el("ul", {}, ...partItems({}));
  usedIn.then(
    (found) => parts.replaceChildren(...partItems(found)),
    () => {},
  );

  const name = el("input", { id: "record-name", autocomplete: "name", spellcheck: "false" });
  const scope = el(
    "select",
    { id: "record-scope" },
    el("option", { value: "course" }, "the whole course"),
    ...chapters(lessons)
      .filter((c) => c.number)
      .map((c) => el("option", { value: String(c.number) }, c.title)),
  );
  const exportButton = el(
    "button",
    { type: "button", class: "primary", "data-testid": "record-export" },
    "Export a record",
  );
  const said = el("p", { class: "muted", role: "status" });
  exportButton.addEventListener("click", async () => {
    said.textContent = "Making the record…";
    try {
      said.textContent = await exportRecord({ name: name.value.trim(), scope: scope.value });
    } catch (error) {
      said.textContent = `The record could not be made: ${error.message}`;
    }
  });

  root.setAttribute("data-testid", "course-map");
  root.replaceChildren(
    el("h1", { id: "map-title" }, "Course map"),
    el(
      "p",
      { class: "map-summary" },
      `${done} of ${lessons.length} lessons done, `,
      el("span", { "data-role": "map-exercises" }, exercises.text),
      ". ",
      next
        ? el(
            "span",
            {},
            "Next: ",
            el("a", { href: `#/${next.slug}`, "data-role": "map-next" }, `${next.number} · ${next.title}`),
          )
        : "Every lesson is done.",
    ),
    pathSummary(estimate)
      ? el(
          "p",
          { class: "map-path", "data-role": "map-path" },
          el("span", { "aria-hidden": "true" }, `${CORE_MARK} `),
          `${pathSummary(estimate)}. The other lessons are optional: each deepens a core lesson. `,
          el("span", { class: "muted" }, `How the time is estimated: ${estimate.rule}.`),
        )
      : "",
    ...groups,
    el(
      "section",
      { class: "map-parts", "aria-labelledby": "map-parts-title" },
      el("h2", { id: "map-parts-title" }, "What you build"),
      parts,
    ),
    el(
      "section",
      { class: "map-record", "aria-labelledby": "map-record-title" },
      el("h2", { id: "map-record-title" }, "A record of what you built"),
      el("p", {}, PROVES),
      el(
        "div",
        { class: "record-form" },
        el("label", { for: "record-name" }, "Your name, as it should appear "),
        name,
        el("label", { for: "record-scope" }, " of "),
        scope,
        " ",
        exportButton,
      ),
      said,
      el(
        "p",
        {},
        el("a", { href: "#records" }, "Check a record"),
        " · ",
        el("a", { href: "#teacher" }, "Teacher's view"),
      ),
    ),
  );
}

/** The exercises of `lessons` and how many are done: a lesson's exercises are done when all its checks
 * pass on the code it holds now (state "done"); index.json counts each lesson's exercise cells. */
export function exercisesDone(lessons, stateOf) {
  const count = (list) => list.reduce((sum, meta) => sum + (meta.exercises || 0), 0);
  const total = count(lessons);
  const done = count(lessons.filter((meta) => stateOf(meta.slug) === "done"));
  return { done, total, text: `${done} of ${total} exercise${total === 1 ? "" : "s"} done` };
}

/** Each lesson's state, for the map: `codeOf(slug)` the lesson's edits now (storage.js codeKey). */
export function statesFrom(progress, codeOf) {
  return (slug) => lessonState(progress[slug], codeOf(slug));
}
