// The proof pages — the course map (#map), Check a record (#records), the teacher's view (#teacher) —
// in one section of the page that takes the lessons' place while its address is shown (main.js's
// route asks `viewOf`). Parts are handed in, as panels.js has them: nothing here imports main.js.

import { fittingEdits, codeKey, loadProgress } from "../ui/storage.js";
import { minedIds } from "../run/carried.js";
import { renderMap, statesFrom } from "./coursemap.js";
import { renderCheck } from "./recordcheck.js";
import { renderTeacher } from "./teacher.js";
import { replayRecord } from "./replayer.js";
import { makeRecord } from "./progress.js";

const VIEWS = { "#map": "map", "#records": "records", "#teacher": "teacher" };
const TITLES = { map: "Course map", records: "Check a record", teacher: "Teacher's view" };

/** The proof view an address names ("map", "records", "teacher"), or null for a lesson's. */
export function viewOf(hash) {
  return VIEWS[hash] || null;
}

/**
 * @param {HTMLElement} root  the proof section
 * @param {object} parts  {lessons() and estimate() (index.json's), build() -> Promise of build.json, fetchLesson(meta),
 *                        fetchText(meta) (the lesson's file), download(name, text), site (the looplab version)}
 */
export function setupProof(root, { lessons, estimate, build, fetchLesson, fetchText, download, site }) {
  let title = document.title; // the lesson's, put back when the lessons come back
  const replay = async (record, verdict) =>
    replayRecord(record, { build: await build(), lessons: lessons(), fetchText, fetchLesson, verdict });
  // Each view in a part of its own, drawn once (a teacher's replays go on while the map is shown);
  // the map is drawn afresh each time it is shown.
  const parts = {};
  const partOf = (name) => {
    if (!parts[name]) root.append((parts[name] = Object.assign(document.createElement("div"), { hidden: true })));
    return parts[name];
  };
  const views = {
    records: () => renderCheck(partOf("records"), { replay }),
    teacher: () => renderTeacher(partOf("teacher"), { replay, download: (name, text) => download(name, text) }),
    map: () => drawMap(),
  };

  function drawMap() {
    const progress = loadProgress();
    renderMap(partOf("map"), {
      lessons: lessons(),
      estimate: estimate(),
      stateOf: statesFrom(progress, codeKey),
      progress,
      usedIn: usedAgain(),
      exportRecord,
    });
  }

  async function usedAgain() {
    const usedIn = {};
    for (const meta of lessons()) {
      const lesson = await fetchLesson(meta).catch(() => null);
      for (const id of lesson ? minedIds(lesson.cells) : []) (usedIn[id] = usedIn[id] || []).push(meta.number);
    }
    return usedIn;
  }

  async function exportRecord({ name, scope }) {
    const progress = loadProgress();
    const cells = {};
    for (const meta of lessons()) {
      if (!progress[meta.slug]) continue;
      const lesson = await fetchLesson(meta);
      cells[meta.slug] = fittingEdits(meta.slug, lesson, meta.hash).cells;
    }
    const record = makeRecord({
      name,
      scope,
      lessons: lessons(),
      progress,
      cellsOf: (meta) => cells[meta.slug] || {},
      site,
    });
    if (!record.lessons.length) return "No lesson in it has been run yet: run a lesson's checks first.";
    const file = `looplab-record-${scope === "course" ? "course" : `chapter-${scope}`}.json`;
    download(file, JSON.stringify(record, null, 1));
    return `Saved ${file}: ${record.lessons.length} lesson${record.lessons.length === 1 ? "" : "s"}, your code and its checks' results.`;
  }

  return {
    /** Show the view `name` in place of the lessons (the map is drawn afresh each time). */
    show(name) {
      if (root.hidden) title = document.title;
      document.body.dataset.view = "proof";
      root.hidden = false;
      if (!parts[name] || name === "map") views[name]();
      for (const [key, part] of Object.entries(parts)) part.hidden = key !== name;
      root.setAttribute("aria-labelledby", `${name}-title`);
      document.title = `${TITLES[name]} · Loop Lab`;
      const heading = parts[name].querySelector("h1");
      heading.setAttribute("tabindex", "-1");
      heading.focus();
    },
    hide() {
      if (root.hidden) return;
      root.hidden = true;
      delete document.body.dataset.view;
      document.title = title;
    },
  };
}
