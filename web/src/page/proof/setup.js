// The proof pages wired to the page: proofview.js's parts handed in from here (the lessons, build.json,
// a lesson's files, downloads, the site's version), so main.js hands in only the session's lessons and
// the key to keep out of downloads. The address (lesson/address.js) asks the hook this returns first.

import { setupProof, viewOf } from "./proofview.js";
import { fetchLesson, fetchLessonText } from "../lesson/address.js";
import { download } from "../lesson/exports.js";
import { startEarly } from "../start/early.js";

/**
 * @param {object} page  {$ (an element by selector), byTest (by data-testid), lessons () (index.json's),
 *   estimate () (index.json's), secret () (the API key: never in a download)}
 * @returns {(hash: string) => Promise | null}  the proof view the address names, shown (a Promise), or
 *   null when it names a lesson (the proof pages hidden)
 */
export function setupProofPages({ $, byTest, lessons, estimate, secret }) {
  const proof = setupProof($("[data-role=proof]"), {
    lessons,
    estimate,
    build: () => startEarly().build, // the page's one build.json (start/early.js fetched it once)
    fetchLesson,
    fetchText: fetchLessonText,
    download: (name, text) => download(name, text, secret()),
    site: (byTest("version").textContent.match(/Loop Lab (\S+)/) || [])[1] || "",
  });
  return (hash) => {
    const view = viewOf(hash);
    if (view) return Promise.resolve(proof.show(view));
    proof.hide();
    return null;
  };
}
