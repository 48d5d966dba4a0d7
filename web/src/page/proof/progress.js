// Where a learner stands, as data (no DOM): each lesson's state for the course map, the parts of the
// agent the course builds and where each is used again, the lesson to do next, and a "built it"
// record made from what this device keeps (its format: looplab/_course/record.py).

export const STATES = ["new", "started", "done", "changed"];
export const RECORD_FORMAT = "looplab-record";
export const RECORD_VERSION = 1;

/**
 * A lesson's state: "new" (never run, never edited), "started" (run or edited, never all ✓),
 * "done" (all ✓ with the code as it is now), "changed" (all ✓ once, but edited or failing since).
 * @param {object | undefined} record  the lesson's saved progress (storage.js saveProgress)
 * @param {string} code  the lesson's edits now (storage.js codeKey); "[]" when none
 */
export function lessonState(record, code) {
  if (!record) return code !== "[]" ? "started" : "new";
  if (record.passed && (record.passedCode === undefined || record.passedCode === code)) return "done";
  if (record.passedOnce) return "changed";
  return "started";
}

// The parts the learner builds, by the lesson that builds each (lessons/index.json's `number`).
export const PARTS = [
  { name: "the Toolbox", lesson: "02" },
  { name: "the loop", lesson: "04" },
  { name: "memory that fits", lesson: "08" },
  { name: "gates", lesson: "10" },
  { name: "the whole agent", lesson: "15" },
  { name: "the streaming reader", lesson: "14b" },
  { name: "the research helper", lesson: "16" },
  { name: "the coding agent", lesson: "25" },
  { name: "the benchmark", lesson: "26" },
];

/** The first lesson, in course order, that is not done (null when all are). */
export function nextLesson(lessons, stateOf) {
  return lessons.find((meta) => stateOf(meta.slug) !== "done") || null;
}

/** The chapters as [{number, title, lessons}] in course order; lessons with no chapter last, untitled. */
export function chapters(lessons) {
  const out = [];
  for (const meta of lessons) {
    const number = meta.chapter ? meta.chapter.number : 0;
    let group = out.find((c) => c.number === number);
    if (!group) out.push((group = { number, title: meta.chapter ? meta.chapter.title : "More lessons", lessons: [] }));
    group.lessons.push(meta);
  }
  return out;
}

/**
 * A "built it" record of the lessons in `scope` ("course", or a chapter's number as text) that the
 * learner has run: their code and their checks' last results.
 * @param {object} parts  {name, scope, lessons (index.json's), progress, cellsOf(meta) -> {index: source}, site}
 */
export function makeRecord({ name, scope, lessons, progress, cellsOf, site }) {
  const chosen = lessons.filter((meta) => scope === "course" || String(meta.chapter && meta.chapter.number) === scope);
  const entries = chosen
    .filter((meta) => progress[meta.slug] && Array.isArray(progress[meta.slug].results))
    .map((meta) => ({
      slug: meta.slug,
      hash: meta.hash,
      cells: cellsOf(meta),
      error: null,
      checks: progress[meta.slug].results.map((c) => ({ name: c.name, status: c.status, message: c.message || "" })),
    }));
  return {
    format: RECORD_FORMAT,
    version: RECORD_VERSION,
    name,
    made: new Date().toISOString(),
    site,
    lessonFormat: 1,
    scope: scope === "course" ? "course" : `chapter ${scope}`,
    lessons: entries,
  };
}

/** A record read from a file, or an Error that says what is wrong with it. */
export function readRecord(data) {
  if (!data || data.format !== RECORD_FORMAT)
    throw new Error(`it is not a Loop Lab record (it has no "format": "${RECORD_FORMAT}")`);
  if (data.version !== RECORD_VERSION)
    throw new Error(`it is a record of version ${data.version}; this page reads version ${RECORD_VERSION}`);
  if (!Array.isArray(data.lessons) || !data.lessons.length) throw new Error("the record holds no lessons");
  for (const entry of data.lessons)
    if (!entry || typeof entry.slug !== "string" || typeof (entry.cells || {}) !== "object")
      throw new Error("a lesson of the record has no slug or no cells");
  return data;
}

/** A progress file (storage.js exportAll) as a record, so a teacher's view replays both alike. */
export function progressAsRecord(data, name) {
  if (!data || data.format !== "looplab-progress") return null;
  const lessons = Object.entries(data.progress || {})
    .filter(([, p]) => p && Array.isArray(p.results))
    .map(([slug, p]) => ({
      slug,
      hash: data.edits?.[slug]?.lessonHash,
      cells: Object.fromEntries(
        Object.entries(data.edits?.[slug]?.cells || {}).filter(([, source]) => typeof source === "string"),
      ),
      error: null,
      checks: p.results.map((c) => ({ name: c.name, status: c.status, message: c.message || "" })),
    }));
  return { format: RECORD_FORMAT, version: RECORD_VERSION, name, scope: "progress file", lessons };
}

export const VERDICT_SAYS = {
  holds: "✓ holds",
  fails: "✗ fails",
  "results-differ": "≠ results do not match the code",
  reference: "= the lesson's reference solution",
};

/** Rows as CSV text (RFC 4180 quoting). */
export function toCSV(rows) {
  const quote = (value) => {
    const text = String(value ?? "");
    return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return rows.map((row) => row.map(quote).join(",")).join("\r\n") + "\r\n";
}
