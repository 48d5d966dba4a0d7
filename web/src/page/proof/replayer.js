// Re-checking a "built it" record in the page: every lesson's checks run on the record's code in a
// Python worker of its own (looplab._course.record through the worker's `replay`, the same code as
// `looplab verify`). A record's code is code from elsewhere: that worker is started with no endpoint
// and no key (its policy lets Python reach this site only), runs scripted, and is ended when the
// record is done, so one record's code never shares a Python with the learner's runs or another
// record's.

import { Runner } from "../run/runner.js";
import { WorkerPool } from "../start/workerpool.js";
import { thisVisit } from "../start/visit.js";

const LESSON_LIMIT_MS = 120_000; // a lesson's replay that runs longer is ended: its verdict is "fails"
const NO_ENDPOINT = () => ({ baseUrl: "", key: "" });
const QUIET = { stdout() {}, stderr() {}, event() {}, ask: () => ({ refused: "a record's replay asks nothing" }) };

/** A keyless Python, ready: resolves a Runner (never the page's own). */
function keylessRunner(build) {
  return new Promise((resolve, reject) => {
    const runner = new Runner(build, {
      pool: new WorkerPool(build, { visit: { ...thisVisit(), spare: "off" }, endpoint: NO_ENDPOINT }),
      endpoint: NO_ENDPOINT,
      starting() {},
      progress() {},
      ready: () => resolve(runner),
      crashed: (message) => reject(new Error(message)),
    });
  });
}

/**
 * Replay `record` lesson by lesson; `verdict(v)` hears each lesson's verdict ({slug, verdict,
 * detail, checks}) as it comes. `lessons`: index.json's entries; `fetchText(meta)` a lesson's file,
 * `fetchLesson(meta)` its cells. Resolves the verdicts in the record's order.
 */
export async function replayRecord(record, { build, lessons, fetchText, fetchLesson, verdict = () => {} }) {
  const texts = {};
  for (const entry of record.lessons) {
    const meta = lessons.find((m) => m.slug === entry.slug);
    if (meta) texts[entry.slug] = await fetchText(meta);
  }
  let runner = null;
  const out = [];
  try {
    for (const entry of record.lessons) {
      const meta = lessons.find((m) => m.slug === entry.slug);
      const cells = meta ? withCode((await fetchLesson(meta)).cells, entry.cells || {}) : [];
      runner = runner || (await keylessRunner(build));
      let timer = null;
      const late = new Promise((resolve) => {
        timer = setTimeout(
          () => resolve({ error: `the replay did not end within ${LESSON_LIMIT_MS / 1000} s`, late: true }),
          LESSON_LIMIT_MS,
        );
      });
      const result = await Promise.race([
        runner.replay({ cells, record, texts, only: entry.slug }, { env: { LOOPLAB_MODEL: "scripted" }, on: QUIET }),
        late,
      ]);
      clearTimeout(timer);
      if (result.late) {
        runner.close(); // the next lesson gets a fresh Python
        runner = null;
      }
      const found = (result.verdicts || [])[0] || {
        slug: entry.slug,
        verdict: "fails",
        detail: result.error || result.message || "the replay did not finish",
        checks: [],
      };
      out.push(found);
      verdict(found);
    }
  } finally {
    if (runner) runner.close();
  }
  return out;
}

/** A lesson's cells with the record's code in its editable cells (looplab's Cell.editable, in the
 * built lesson), for the packages the code imports. */
function withCode(cells, code) {
  return cells.map((cell, index) =>
    typeof code[index] === "string" && cell.editable ? { ...cell, source: code[index] } : cell,
  );
}
