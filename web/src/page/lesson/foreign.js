// Code that came from elsewhere — a share link, an imported progress file, a notebook — is marked:
// a banner over the lesson (data-testid "foreign-code") says to read it before running it with
// your key, and the lesson runs on the scripted model until the learner chooses the live or the
// local model for it, with one click (main.js asks storage.js foreignSource for the lesson's mode).
// The learner's own edits are never marked.
//
// It never shares a realm with the key (realmOf): while marked it runs in a Python that holds no
// key; once chosen, in one that holds it, which the learner's own code never uses afterwards
// (runner.js starts a fresh one, from the snapshot); and mine(N) never carries it (carried.js).

import { el } from "../ui/dom.js";
import { fromNotebook } from "./notebook.js";
import { putShared } from "../ui/storage.js";

const WHAT = { link: "a link", "progress file": "a progress file", notebook: "a notebook", record: "a record" };

/** The model a lesson's runs use: scripted while its code is marked, else the toggle's. */
export function modeFor(from, mode) {
  return from ? "scripted" : mode;
}

/**
 * The Python a lesson's code may run in, by where it came from (storage.js codeOrigin):
 * "keyless" — marked code from elsewhere: a Python that holds no key;
 * "elsewhere" — code from elsewhere the learner chose their model for: a Python with the key, which
 *   no run of their own code uses after it;
 * "own" — the learner's own code: a Python with the key that no code from elsewhere has touched.
 */
export function realmOf(origin) {
  if (!origin) return "own";
  return origin.chosen ? "elsewhere" : "keyless";
}

/**
 * Draw the banner at the top of `root`. `onChoose(mode)` ("live" or "local") follows a click on
 * one of its buttons; the banner then goes away. Without `onChoose` there is no choice: the code
 * only ever runs scripted (a record's, page/proof/recordcheck.js).
 */
export function showForeign(root, { from, onChoose }) {
  const what = WHAT[from] || "elsewhere";
  const choose = (mode, label) => {
    const button = el("button", { type: "button", "data-role": `foreign-${mode}` }, label);
    button.addEventListener("click", () => {
      banner.remove();
      onChoose(mode);
    });
    return button;
  };
  const banner = el(
    "div",
    { class: "stale-note foreign-note", role: "note", "data-testid": "foreign-code", "data-from": from },
    onChoose
      ? el(
          "p",
          {},
          el("strong", {}, `Code from ${what} — read it before you run it with your key.`),
          " Until you choose, this lesson runs on the scripted model: nothing is sent to your endpoint.",
        )
      : el(
          "p",
          {},
          el("strong", {}, `Code from ${what}.`),
          " It runs on the scripted model only, in a Python of its own that never holds your key: nothing is sent anywhere.",
        ),
    onChoose
      ? el("p", {}, choose("live", "Run it with my live model"), " ", choose("local", "Run it with my local model"))
      : null,
  );
  root.prepend(banner);
  return banner;
}

/**
 * Put code from elsewhere into a lesson, marked as from `from`: `read(lesson)` gives {cells:
 * {index: source}, payload}; only code and exercise cells are taken. Returns the payload; throws
 * an Error that says what is wrong.
 */
export async function takeForeign({ meta, slug, from, read, lessonOf }) {
  if (!meta) throw new Error(`it names a lesson this site does not have (${slug})`);
  const lesson = await lessonOf(meta.slug);
  const found = await read(lesson);
  const editable = Object.entries(found.cells).filter(([i]) => lesson.cells[i]?.editable);
  const originals = Object.fromEntries(editable.map(([i]) => [i, lesson.cells[i].source]));
  putShared(meta.slug, meta.hash, Object.fromEntries(editable), originals, from);
  return found.payload ?? null;
}

/** A notebook downloaded from a lesson: its lesson's slug, and `read` for takeForeign. */
export function notebookCells(notebook) {
  const slug = notebook?.metadata?.looplab?.lesson;
  if (typeof slug !== "string")
    throw new Error("it is not a notebook downloaded from a Loop Lab lesson (no metadata.looplab.lesson)");
  return { slug, read: async (lesson) => ({ cells: fromNotebook(notebook, lesson), payload: null }) };
}
