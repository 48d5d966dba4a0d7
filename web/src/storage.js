// What the page keeps on this device: the learner's edits and progress (localStorage), the
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

// --- edits: {slug: {lessonHash, cells: {index: source}}} -------------------------------------

export function loadEdits(slug) {
  return read("edits:" + slug, { cells: {} });
}

export function saveEdit(slug, lessonHash, index, source, original) {
  const edits = loadEdits(slug);
  edits.lessonHash = lessonHash;
  if (source === original) delete edits.cells[index];
  else edits.cells[index] = source;
  if (Object.keys(edits.cells).length === 0) localStorage.removeItem(PREFIX + "edits:" + slug);
  else write("edits:" + slug, edits);
}

export function clearEdits(slug) {
  localStorage.removeItem(PREFIX + "edits:" + slug);
}

export function isModified(slug) {
  return Object.keys(loadEdits(slug).cells || {}).length > 0;
}

// --- progress: {slug: {passed, checks, total, at}} --------------------------------------------

export function loadProgress() {
  return read("progress", {});
}

export function saveProgress(slug, record) {
  const progress = loadProgress();
  const before = progress[slug] || {};
  progress[slug] = { ...record, passedOnce: Boolean(before.passedOnce || record.passed) };
  write("progress", progress);
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

export function loadTheme() {
  return read("theme", null);
}

export function saveTheme(theme) {
  write("theme", theme);
}

// --- export / import of all progress (never the key, never the settings' secrets) --------------

export function exportAll() {
  const edits = {};
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (name && name.startsWith(PREFIX + "edits:")) edits[name.slice((PREFIX + "edits:").length)] = read(name.slice(PREFIX.length), null);
  }
  return { format: "looplab-progress", version: 1, exported: new Date().toISOString(), progress: loadProgress(), edits };
}

export function importAll(data) {
  if (!data || data.format !== "looplab-progress" || typeof data.edits !== "object") {
    throw new Error("this file is not a Loop Lab progress export (it has no \"format\": \"looplab-progress\")");
  }
  let lessons = 0;
  for (const [slug, edits] of Object.entries(data.edits || {})) {
    if (edits && typeof edits.cells === "object") {
      write("edits:" + slug, { lessonHash: edits.lessonHash, cells: edits.cells });
      lessons++;
    }
  }
  write("progress", { ...loadProgress(), ...(data.progress || {}) });
  return lessons;
}
