// Your code carries forward: a lesson that calls `mine(N)` (looplab/_course/mine.py) uses what the learner
// wrote in lesson N. The page knows those edits (storage.js), the worker does not, so each run
// carries the saved cells of every lesson its code names with mine(), and of the lessons those name
// in turn (lesson 26 uses 25, which uses 02). A lesson with no saved edits is left out: Python
// then reads the site's file and says its exercises still hold the starter code. A lesson whose
// saved code came from elsewhere (a link, a progress file, a notebook: foreign.js), chosen or not,
// is carried as where it came from only, {from}: its code never runs inside another lesson's run,
// which may hold the key; Python uses the site's own text and says why in one sentence.

import { codeOrigin, fittingEdits } from "../ui/storage.js";
import { lessonId } from "../lesson/lessonformat.js";

const MINE = /\bmine\(\s*["']?(\d+[a-zA-Z]?)["']?\s*\)/g;

/** The lesson ids ("02", "01b") a lesson's code cells name with mine(N), in order, once each. */
export function minedIds(cells) {
  const ids = [];
  for (const cell of cells) {
    if (cell.kind !== "code") continue;
    for (const [, number] of cell.source.matchAll(MINE)) {
      const id = lessonId(number); // mine(2) is lesson "02", mine("1b") lesson "01b"
      if (id && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

/**
 * The saved cells of the lessons `cells` reuse, for the run message: {lesson id: [{kind, tags,
 * source}]}, each lesson's cells with the learner's fitting edits in place; {lesson id: {from}}
 * for a lesson whose saved code came from elsewhere.
 * @param {object[]} cells        the cells about to run
 * @param {object[]} lessons      lessons/index.json's entries ({slug, number, hash})
 * @param {(meta: object) => Promise<object>} lessonOf  fetches lessons/<slug>.json
 */
const fetched = new Map(); // "slug@hash" -> the lesson's JSON (a Promise): a lesson file changes only with its hash

function lessonOnce(meta, lessonOf) {
  const key = `${meta.slug}@${meta.hash}`;
  if (!fetched.has(key))
    fetched.set(
      key,
      lessonOf(meta).catch((error) => {
        fetched.delete(key);
        throw error;
      }),
    );
  return fetched.get(key);
}

export async function carriedCells(cells, lessons, lessonOf) {
  const carried = {};
  const seen = new Set();
  let todo = minedIds(cells);
  while (todo.length) {
    const id = todo.shift();
    const meta = lessons.find((entry) => entry.number === id);
    if (seen.has(id) || !meta) continue;
    seen.add(id);
    const lesson = await lessonOnce(meta, lessonOf); // each run asks again; the file is read once
    const origin = codeOrigin(meta.slug);
    const { cells: edits } = origin ? { cells: {} } : fittingEdits(meta.slug, lesson, meta.hash);
    const asRun = lesson.cells.map((cell, index) => ({
      kind: cell.kind,
      tags: cell.tags,
      source: edits[index] ?? cell.source,
    }));
    if (origin) carried[id] = { from: origin.from };
    else if (Object.keys(edits).length) carried[id] = asRun;
    todo = todo.concat(minedIds(asRun)); // (the site's own text of a lesson from elsewhere names its own)
  }
  return carried;
}
