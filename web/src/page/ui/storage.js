// What the page keeps on this device: the learner's edits, chats and progress (localStorage), the
// settings (localStorage, without the key), and the API key (sessionStorage, or localStorage
// only when the learner ticked "remember on this device").

const PREFIX = "looplab:v1:";
const KEY_NAME = PREFIX + "api-key";

function read(name, fallback) {
  try {
    const text = localStorage.getItem(PREFIX + name);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

function write(name, value) {
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(value));
    return true;
  } catch {
    return false; // storage full or disabled: the page still works, edits live until reload
  }
}

function remove(name) {
  try {
    localStorage.removeItem(PREFIX + name);
  } catch {
    /* storage disabled */
  }
}

// --- edits: {slug: {lessonHash, cells: {index: source}, originals: {index: source}, stale: [...]}}
// An edit remembers the cell source it was made from, so a new build of the site that moves or
// changes a lesson's cells never puts an old edit into the wrong cell: such edits move to
// `stale` (kept, and exported) instead of being applied or dropped.

function loadEdits(slug) {
  return read("edits:" + slug, { cells: {} });
}

export function saveEdit(slug, lessonHash, index, source, original) {
  const edits = loadEdits(slug);
  edits.lessonHash = lessonHash;
  edits.originals = edits.originals || {};
  if (source === original) {
    delete edits.cells[index];
    delete edits.originals[index];
  } else {
    edits.cells[index] = source;
    edits.originals[index] = original;
  }
  if (Object.keys(edits.cells).length === 0 && !(edits.stale || []).length && !edits.aside) remove("edits:" + slug);
  else write("edits:" + slug, edits);
}

// The saved edits that still fit this version of the lesson ({index: source}); the others are
// moved to the record's `stale` list. Returns {cells, stale} (stale: how many are set aside).
export function fittingEdits(slug, lesson, lessonHash) {
  const edits = loadEdits(slug);
  const fitting = {},
    moved = [];
  for (const [index, source] of Object.entries(edits.cells || {})) {
    const cell = lesson.cells[index];
    const original = edits.originals?.[index];
    const same = original === undefined ? edits.lessonHash === lessonHash : cell?.source === original;
    if (same && cell && cell.editable)
      fitting[index] = source; // (looplab's rule, in the built lesson)
    else moved.push({ index: Number(index), source, original: original ?? null, lessonHash: edits.lessonHash });
  }
  if (moved.length) {
    const originals = Object.fromEntries(Object.keys(fitting).map((i) => [i, lesson.cells[i].source]));
    write("edits:" + slug, {
      ...edits,
      lessonHash,
      cells: fitting,
      originals,
      stale: [...(edits.stale || []), ...moved],
    });
  }
  return { cells: fitting, stale: (edits.stale || []).length + moved.length };
}

export function clearEdits(slug) {
  const { stale = [], aside } = loadEdits(slug); // Reset restores the lesson; set-aside edits stay kept
  if (stale.length || aside) write("edits:" + slug, { cells: {}, stale, aside });
  else remove("edits:" + slug);
}

// --- a shared link's code, and the learner's own edits kept aside (share.js) --------------------
// `aside` holds the edits not shown ({cells, originals, lessonHash}); `shared` is true while the
// shown edits came from a link. Nothing is dropped: an older aside moves to `stale`.

/** Show a link's cells ({index: source}, `originals` the lesson's sources) and keep the learner's
 * own aside; `from` says where the code came from ("link" or "notebook", foreign.js). */
export function putShared(slug, lessonHash, cells, originals, from = "link") {
  const edits = loadEdits(slug);
  const own = {
    cells: edits.cells || {},
    originals: edits.originals || {},
    lessonHash: edits.lessonHash,
    from: edits.from, // (the shown edits may have come from a file themselves: they stay marked)
    chosen: edits.chosen,
  };
  let { aside = null, stale = [] } = edits;
  if (!edits.shared) {
    if (aside && Object.keys(aside.cells || {}).length)
      stale = [
        ...stale,
        ...Object.entries(aside.cells).map(([index, source]) => ({
          index: Number(index),
          source,
          original: aside.originals?.[index] ?? null,
          lessonHash: aside.lessonHash,
        })),
      ];
    aside = own;
  }
  write("edits:" + slug, {
    lessonHash,
    cells,
    originals,
    stale,
    aside,
    shared: true,
    ...(Object.keys(cells).length ? { from } : {}),
  });
}

/** Swap the edits shown and the edits kept aside (the link's code and the learner's own). */
export function swapAside(slug) {
  const edits = loadEdits(slug);
  if (!edits.aside) return;
  const shown = {
    cells: edits.cells || {},
    originals: edits.originals || {},
    lessonHash: edits.lessonHash,
    from: edits.from,
    chosen: edits.chosen,
  };
  const back = edits.aside;
  write("edits:" + slug, {
    ...edits,
    ...back,
    from: back.from,
    chosen: back.chosen,
    aside: shown,
    shared: !edits.shared,
  });
}

// --- code that came from elsewhere (foreign.js): `from` on the shown edits, for good, and `chosen`
// once the learner chose a model for them ---------------------------------------------------------

/** Where the code shown for a lesson came from and whether the learner chose their model for it
 * ({from: "link" | "progress file" | "notebook", chosen}), or null when it is the learner's own. */
export function codeOrigin(slug) {
  const edits = loadEdits(slug);
  if (!Object.keys(edits.cells || {}).length || typeof edits.from !== "string") return null;
  return { from: edits.from, chosen: edits.chosen === true };
}

/** Where the code shown for a lesson came from, while it is marked (the learner has not chosen
 * their model for it yet); else null. */
export function foreignSource(slug) {
  const origin = codeOrigin(slug);
  return origin && !origin.chosen ? origin.from : null;
}

/** The learner has read the code and chosen a model for it: it is no longer marked, and stays
 * code from elsewhere (foreign.js realmOf). */
export function trustCode(slug) {
  const edits = loadEdits(slug);
  if (!edits.from || edits.chosen) return;
  edits.chosen = true;
  write("edits:" + slug, edits);
}

/** null, or {shared}: whether edits are kept aside, and whether the shown ones came from a link. */
export function asideState(slug) {
  const edits = loadEdits(slug);
  return edits.aside ? { shared: Boolean(edits.shared) } : null;
}

// --- prices per million tokens, for the inspector's cost (none by default) ---------------------

export function loadPrices() {
  const prices = read("prices", {});
  return { input: Number(prices.input) || 0, output: Number(prices.output) || 0 };
}

export function savePrices(prices) {
  write("prices", { input: Number(prices.input) || 0, output: Number(prices.output) || 0 });
}

export function isModified(slug) {
  return Object.keys(loadEdits(slug).cells || {}).length > 0;
}

// --- progress: {slug: {passed, checks, total, at}} --------------------------------------------

export function loadProgress() {
  return read("progress", {});
}

// `passedCode`: the edits the lesson last passed with (codeKey), so the course map can tell "all ✓"
// from "✓ once, edited since" (page/proof/coursemap.js).
export function saveProgress(slug, record) {
  const progress = loadProgress();
  const before = progress[slug] || {};
  const passedCode = record.passed ? codeKey(slug) : before.passedCode;
  progress[slug] = { ...record, passedOnce: Boolean(before.passedOnce || record.passed), passedCode };
  write("progress", progress);
}

/** The learner's edits of a lesson as one text: equal texts, equal code. */
export function codeKey(slug) {
  const cells = loadEdits(slug).cells || {};
  return JSON.stringify(
    Object.keys(cells)
      .sort()
      .map((index) => [index, cells[index]]),
  );
}

// --- settings (never the key) ------------------------------------------------------------------

export function loadSettings(defaults) {
  return { ...defaults, ...read("settings", {}) };
}

export function saveSettings(settings) {
  const { apiKey, ...rest } = settings; // the key is stored only by saveKey
  write("settings", rest);
}

export function loadKey() {
  try {
    return sessionStorage.getItem(KEY_NAME) || localStorage.getItem(KEY_NAME) || "";
  } catch {
    return "";
  }
}

export function saveKey(key, remember) {
  try {
    sessionStorage.removeItem(KEY_NAME);
    localStorage.removeItem(KEY_NAME);
    if (!key) return;
    (remember ? localStorage : sessionStorage).setItem(KEY_NAME, key);
  } catch {
    /* storage disabled: the key lives in memory for this page only */
  }
}

// --- the Chat tab's conversation with a lesson's agent, kept beside its edits (page/chat/chat.js) ------

const CHAT_TURNS = 200; // the newest turns kept

export function loadChat(slug) {
  const turns = read("chat:" + slug, []);
  return Array.isArray(turns) ? turns.filter((t) => t && typeof t.text === "string") : [];
}

export function saveChat(slug, turns) {
  if (turns.length) write("chat:" + slug, turns.slice(-CHAT_TURNS));
  else remove("chat:" + slug);
}

export function saveTheme(theme) {
  write("theme", theme);
}

// --- export / import of all progress (never the key, never the settings' secrets) --------------

export function exportAll() {
  const edits = {};
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (name && name.startsWith(PREFIX + "edits:"))
      edits[name.slice((PREFIX + "edits:").length)] = read(name.slice(PREFIX.length), null);
  }
  return {
    format: "looplab-progress",
    version: 1,
    exported: new Date().toISOString(),
    progress: loadProgress(),
    edits,
  };
}

export function importAll(data) {
  if (!data || data.format !== "looplab-progress" || typeof data.edits !== "object") {
    throw new Error('this file is not a Loop Lab progress export (it has no "format": "looplab-progress")');
  }
  let lessons = 0;
  for (const [slug, edits] of Object.entries(data.edits || {})) {
    if (edits && edits.cells && typeof edits.cells === "object") {
      // only text: anything else in a hand-edited file would break the lesson's editors
      const texts = (obj) =>
        Object.fromEntries(Object.entries(obj || {}).filter(([, source]) => typeof source === "string"));
      const stale = Array.isArray(edits.stale) ? edits.stale.filter((e) => e && typeof e.source === "string") : [];
      const cells = texts(edits.cells);
      // code from a file is marked as such (foreign.js), even when it was the learner's own once
      write("edits:" + slug, {
        lessonHash: edits.lessonHash,
        cells,
        originals: texts(edits.originals),
        stale,
        ...(Object.keys(cells).length ? { from: "progress file" } : {}),
      });
      lessons++;
    }
  }
  write("progress", { ...loadProgress(), ...(data.progress || {}) });
  return lessons;
}
