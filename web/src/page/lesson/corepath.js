// The core path and the time estimates as the lesson list and the course map say them. The figures
// are lessons/index.json's (each lesson's `minutes` and `path`, the index's `estimate`), computed by
// looplab/_course/estimate.py and corepath.py from the lesson files: nothing here counts.

export const CORE_MARK = "★"; // beside the word "core", never alone (the mark is aria-hidden)

/** Minutes as a learner reads them: "45 min", "1 h 10 min", "11 h" (estimate.py's `say`). */
export function sayMinutes(minutes) {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (!hours) return `${rest} min`;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** A lesson's place in words: {core, label ("core", "deepens 04"), adds (a deepening's one line, else "")}
 * or null when the index gives it none (a fixture). */
export function placeOf(meta) {
  const path = meta.path;
  if (!path) return null;
  return path.core
    ? { core: true, label: "core", adds: "", why: path.why || "" }
    : { core: false, label: `deepens ${path.deepens}`, adds: path.adds || "", why: "" };
}

/** The core path's summary: "Core path: 9 lessons, about 11 h 40 min · every lesson: about 34 h 55 min". */
export function pathSummary(estimate) {
  if (!estimate || !estimate.core_lessons) return "";
  return (
    `Core path: ${estimate.core_lessons} lessons, about ${sayMinutes(estimate.core)} · ` +
    `every lesson: about ${sayMinutes(estimate.course)}`
  );
}
