// The lesson in the address: `#/<slug>` opens a lesson (a share link's `#/<slug>/<data>` its shared
// cells, and its run), Previous and Next move along the list, and a lesson's file is fetched for
// whoever draws it. The session (session.js) decides what is shown; main.js hands its store in.

import { openShared, readHash } from "./share.js";
import { readIndex } from "./lessonformat.js";

/** A JSON file of the site, never a stale copy (a new build changes it). */
export async function fetchJSON(url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

/** A lesson's file (lessons/<slug>.json). */
export const fetchLesson = (meta) => fetchJSON(`lessons/${meta.slug}.json`);

/** A lesson's file as written (lessons/<file>, the .py), never a stale copy. */
export async function fetchLessonText(meta) {
  const response = await fetch(`lessons/${meta.file}`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`lessons/${meta.file}: HTTP ${response.status}`);
  return response.text();
}

export class Address {
  /**
   * @param {object} store  the session's store (session.js)
   * @param {object} hooks  toast(text, ms), openRun(shared, label): a shared link's run to the inspector;
   *   other(hash): a page shown in the lessons' place for this address (proof/setup.js), a Promise, or null
   */
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    this.routed = null; // the address route() last read (null: not yet)
    this.fetched = new Map(); // a shared link's lesson, fetched for its edits: the view takes it, not a second fetch
    window.addEventListener("hashchange", () => location.hash !== this.routed && this.route()); // (a Run may have read it first)
  }

  /** The lesson list (lessons/index.json) to the session, then the lesson the address names;
   * `failed(text)` says why there is none. */
  list(failed) {
    return fetchJSON("lessons/index.json")
      .then((index) => {
        this.store.dispatch({ type: "listed", lessons: readIndex(index), estimate: index.estimate || null });
        return this.route();
      })
      .catch((error) => failed(`The lessons could not be loaded (${error.message}).`));
  }

  /** The lesson's file for the view that draws it. */
  lessonOf(meta) {
    const kept = this.fetched.get(meta.slug);
    return (kept ? Promise.resolve(kept) : fetchLesson(meta)).finally(() => this.fetched.delete(meta.slug));
  }

  /** Open the lesson the address names (a share link's cells taken in first), or the page in the
   * lessons' place it names. */
  route() {
    this.routed = location.hash;
    const other = this.hooks.other ? this.hooks.other(location.hash) : null;
    if (other) return other;
    const { slug, share } = readHash(location.hash);
    const open = (name) => Promise.all(this.store.dispatch({ type: "open", slug: name }));
    if (share === null) return open(slug);
    const keep = (meta) => fetchLesson(meta).then((lesson) => (this.fetched.set(meta.slug, lesson), lesson));
    return openShared(slug, share, {
      lessons: this.store.state.lessons,
      fetchLesson: keep,
      open,
      toast: (...a) => this.hooks.toast(...a),
      openRun: (shared) => this.hooks.openRun(shared, "the shared link's run"),
    });
  }

  /** A Run pressed right after a lesson link runs that lesson (session.js), even when the press is
   * heard before the address change's hashchange event: the address is read first. */
  readFirst() {
    if (this.routed !== null && location.hash !== this.routed) this.route();
  }

  /** The lesson `delta` places along the list (Previous: -1, Next: 1), when there is one. */
  go(delta) {
    const { lessons, lesson } = this.store.state;
    if (!lesson) return;
    const after = lessons[lessons.findIndex((l) => l.slug === lesson.slug) + delta];
    if (after) location.hash = `#/${after.slug}`;
  }
}
