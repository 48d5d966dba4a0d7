// The page: lesson list, the lesson, Run/Stop/Reset, the panels, settings, theme, shortcuts.
// Python runs in a worker (runner.js); the page never blocks on it.

import { Runner } from "./runner.js";
import { LessonView } from "./lessonview.js";
import { Output, Trace, Context, showChecks } from "./panels.js";
import { announceRuns } from "./announce.js";
import { Settings, setupDialog } from "./settings.js";
import { isModified, loadProgress, saveProgress, exportAll, importAll, loadTheme, saveTheme } from "./storage.js";

const $ = (selector) => document.querySelector(selector);
const byTest = (id) => document.querySelector(`[data-testid="${id}"]`);

const ui = {
  list: byTest("lesson-list"),
  text: byTest("lesson-text"),
  run: byTest("run"),
  stop: byTest("stop"),
  reset: byTest("reset"),
  toggle: byTest("model-toggle"),
  settings: byTest("settings"),
  status: byTest("status"),
  statusText: $("[data-role=status-text]"),
  progress: $("[data-role=progress]"),
  title: $("[data-role=title]"),
  modified: $("[data-role=modified]"),
  mode: $("[data-role=mode]"),
  toast: $("[data-role=toast]"),
};

const output = new Output(byTest("output"));
const trace = new Trace(byTest("trace"));
const context = new Context(byTest("context-view"));
const settings = new Settings();

let lessons = [];
let view = null; // LessonView
let current = null; // index entry of the shown lesson
let runner = null;
let pythonInfo = null;
let loadingSince = performance.now();

// --- status line -------------------------------------------------------------------------------

function status(text, state, extra = {}) {
  ui.statusText.textContent = text;
  ui.status.dataset.state = state;
  for (const [key, value] of Object.entries(extra)) ui.status.dataset[key] = value;
}

function mb(bytes) {
  return (bytes / 1e6).toFixed(1);
}

function toast(text, ms = 6000) {
  ui.toast.textContent = text;
  ui.toast.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (ui.toast.hidden = true), ms);
}

// --- lesson list and routing -------------------------------------------------------------------

function renderList() {
  const progress = loadProgress();
  ui.list.replaceChildren(...lessons.map((lesson) => {
    const record = progress[lesson.slug] || {};
    const modified = isModified(lesson.slug);
    const state = record.passed ? "passed" : record.passedOnce ? "passed-before" : record.checks !== undefined ? "tried" : "new";
    const mark = { passed: "✓", "passed-before": "✓", tried: "✗", new: "" }[state];
    const item = document.createElement("li");
    item.dataset.slug = lesson.slug;
    item.dataset.state = state;
    const link = document.createElement("a");
    link.href = `#/${lesson.slug}`;
    link.innerHTML = `<span class="num"></span><span class="name"></span><span class="mark" aria-hidden="true"></span>`;
    link.querySelector(".num").textContent = String(lesson.number).padStart(2, "0");
    link.querySelector(".name").textContent = lesson.title;
    link.querySelector(".mark").textContent = mark + (modified ? " •" : "");
    link.title = `${lesson.title}${state === "passed" ? " — all checks passed" : state === "tried" ? " — not all checks pass yet" : ""}${modified ? " — modified" : ""}`;
    if (current && lesson.slug === current.slug) link.setAttribute("aria-current", "page");
    item.append(link);
    return item;
  }));
}

async function fetchJSON(url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

let showing = 0; // the latest showLesson call: an earlier one still loading must not replace it

async function showLesson(slug) {
  const meta = lessons.find((l) => l.slug === slug) || lessons[0];
  if (!meta) {
    ui.text.replaceChildren(Object.assign(document.createElement("p"), { textContent: "No lessons yet." }));
    return;
  }
  const ticket = ++showing;
  if (runner && runner.running) runner.stop();
  const lesson = await fetchJSON(`lessons/${meta.slug}.json`);
  if (ticket !== showing) return;
  current = meta;
  shownModified = null;
  document.title = `${meta.title} · Loop Lab`;
  ui.title.textContent = meta.title;
  view = new LessonView(ui.text, lesson, meta, { onModified, keys: editorKeys });
  onModified(view.modified()); // draws the list, with this lesson marked current
  output.clear();
  trace.clear();
  context.clear();
  const record = loadProgress()[meta.slug];
  showChecks(byTest("checks"), (record && record.results) || [], { pending: !record });
  if (record && record.results) byTest("checks").dataset.stale = "true";
  byTest("lesson-text").scrollTop = 0;
  $("#lesson").scrollTop = 0;
  ui.text.dataset.slug = meta.slug;
  document.body.dataset.lesson = meta.slug;
  if (!performance.getEntriesByName("looplab:prose").length) {
    requestAnimationFrame(() => performance.mark("looplab:prose")); // first prose on screen (bench/startup.py)
  }
}

function route() {
  const slug = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  return showLesson(slug);
}

function go(delta) {
  if (!current) return;
  const index = lessons.findIndex((l) => l.slug === current.slug);
  const next = lessons[index + delta];
  if (next) location.hash = `#/${next.slug}`;
}

let shownModified = null; // the lesson's "modified" state as the list shows it

// Called on every edit: the list is drawn again only when the lesson's modified state changes.
function onModified(modified) {
  ui.modified.hidden = !modified;
  if (modified === shownModified) return;
  shownModified = modified;
  renderList();
}

// --- running -----------------------------------------------------------------------------------

function updateButtons() {
  const running = Boolean(runner && runner.running);
  // aria-disabled, not disabled: a focused button that stops working keeps the focus (run() and
  // stop() ignore a press that cannot work; Run then says that Python is still loading)
  ui.run.setAttribute("aria-disabled", String(!runner || !runner.ready || running || !view));
  ui.stop.setAttribute("aria-disabled", String(!running));
  document.body.dataset.running = String(running);
}

async function run() {
  if (runner && !runner.ready && view) toast("Python is still loading; Run works as soon as the status line says Ready.", 3000);
  if (!view || !runner || !runner.ready || runner.running) return;
  if (settings.live) {
    const problem = settings.problem();
    if (problem) {
      toast(`Live model: ${problem}.`);
      openSettings();
      return;
    }
  }
  output.clear();
  trace.clear();
  context.clear();
  const checks = byTest("checks");
  delete checks.dataset.stale;
  checks.dataset.running = "true";
  const { slug, title } = current;
  const started = performance.now();
  ui.status.dataset.runStarted = String(started);
  delete ui.status.dataset.runEnded;
  delete ui.status.dataset.extrasMs;
  status(`Running ${current.title} with the ${settings.live ? "live" : "scripted"} model…`, "running");
  if (document.body.dataset.tab !== "output" && matchMedia("(max-width: 760px)").matches) setTab("output");
  const promise = runner.run(view.cells(), { env: settings.env() });
  updateButtons();
  const result = await promise;
  const ended = performance.now();
  ui.status.dataset.runEnded = String(ended);
  if (result.extras) ui.status.dataset.extrasMs = String(result.extras.ms); // bench/sdk_browser.py reads it
  delete checks.dataset.running;
  updateButtons();
  const seconds = ((ended - started) / 1000).toFixed(2);
  if (!current || current.slug !== slug) {
    // The learner left the lesson, which stopped the run: its panels now show the other lesson.
    if (result.interrupted) status(`Stopped ${title}: you opened another lesson.`, "stopped");
    else if (!result.crashed) saveProgress(slug, progressRecord(result));
    renderList();
    return;
  }
  if (result.crashed) {
    output.note(result.crashed);
    status(`${result.crashed} Starting Python again…`, "crashed");
    showChecks(checks, [], {});
    return;
  }
  if (result.interrupted) {
    output.note(result.terminated ? "Stopped. (Python did not answer the interrupt, so it was restarted; your code is kept.)" : "Stopped: KeyboardInterrupt.");
    showChecks(checks, [], {});
    status(`Stopped after ${seconds} s.${result.terminated ? " Starting Python again…" : ""}`, "stopped");
    return;
  }
  if (result.error) output.write(result.error + "\n", "error");
  showChecks(checks, result.checks);
  const passed = result.checks.filter((c) => c.ok).length;
  saveProgress(slug, progressRecord(result));
  renderList();
  status(`Done in ${seconds} s · ${passed} of ${result.checks.length} checks passed${result.error ? " · your code raised an error (see Output)" : ""}`, result.ok ? "passed" : "failed");
}

function progressRecord(result) {
  const passed = result.checks.filter((c) => c.ok).length;
  return { passed: result.ok, checks: passed, total: result.checks.length, at: Date.now(), results: result.checks };
}

function stop() {
  if (runner && runner.running) {
    status("Stopping…", "stopping");
    runner.stop();
  }
}

function startRunner(build) {
  runner = new Runner(build, {
    progress({ stage, loaded, total }) {
      if (runner && runner.ready) return;
      ui.progress.max = total;
      ui.progress.value = Math.min(loaded, total);
      ui.progress.hidden = false;
      status(`${stage[0].toUpperCase() + stage.slice(1)}… ${mb(loaded)} of ${mb(total)} MB`, "loading", { stage });
    },
    ready(info) {
      pythonInfo = info;
      ui.progress.value = ui.progress.max;
      ui.progress.hidden = true;
      const ms = Math.round(performance.now() - loadingSince);
      ui.status.dataset.readyAt = String(performance.now());
      ui.status.dataset.workerTimes = JSON.stringify({ ...info.times, start: info.times.start - performance.timeOrigin });
      if (!performance.getEntriesByName("looplab:ready").length) performance.mark("looplab:ready");
      status(`Ready · Python ${info.python} (Pyodide ${info.pyodide}) in ${(ms / 1000).toFixed(1)} s · ${settings.live ? "live" : "scripted"} model${info.isolated ? "" : " · Stop restarts Python (page is not cross-origin isolated)"}`, "ready", { stage: "ready" });
      updateButtons();
      registerServiceWorker();
    },
    stdout: (text) => output.write(text, "stdout"),
    stderr: (text) => output.write(text, "stderr"),
    event(event) {
      trace.add(event);
      context.add(event);
    },
    crashed(message, { restart }) {
      loadingSince = performance.now();
      const text = restart ? message : `${message} Reload the page to try again.`;
      status(text, "crashed");
      toast(text);
      updateButtons();
    },
  });
  // After a Stop that had to terminate, or a crash, the runner starts a new worker: show its loading.
  const restart = runner.start.bind(runner);
  runner.start = () => {
    loadingSince = performance.now();
    restart();
    updateButtons();
  };
}

// --- model toggle and settings -----------------------------------------------------------------

let dialog = null;

function openSettings() {
  dialog.open();
}

function showMode() {
  ui.mode.textContent = settings.live ? "live" : "scripted";
  ui.toggle.setAttribute("aria-pressed", String(settings.live));
  ui.toggle.dataset.mode = settings.values.mode;
  document.body.dataset.mode = settings.values.mode;
}

// --- theme -------------------------------------------------------------------------------------

function effectiveTheme() {
  return document.documentElement.dataset.theme || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
}

function toggleTheme() {
  const next = effectiveTheme() === "dark" ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  saveTheme(next);
}

// --- phone tabs and panel tabs -----------------------------------------------------------------

function setTab(tab) {
  document.body.dataset.tab = tab;
  for (const button of document.querySelectorAll(".phone-tabs button")) button.setAttribute("aria-pressed", String(button.dataset.tab === tab));
}

function setPanel(name) {
  for (const tab of document.querySelectorAll(".panel-tabs [role=tab]")) tab.setAttribute("aria-selected", String(tab.dataset.panel === name));
  for (const body of document.querySelectorAll("[data-panel-body]")) body.hidden = body.dataset.panelBody !== name;
}

// --- keyboard ----------------------------------------------------------------------------------

// In an editor these come first: Mod-Enter would insert a line, and Esc during a run means Stop
// (not CodeMirror's "Esc then Tab leaves the editor", which stays for when nothing runs). A key an
// editor handled is not handled again by onKey below (its default is prevented).
const editorKeys = [
  { key: "Mod-Enter", run: () => (run(), true) },
  { key: "Ctrl-.", run: () => (stop(), true) },
  { key: "Escape", run: () => Boolean(runner && runner.running) && (stop(), true) },
];

function typing(target) {
  return target && (target.closest(".cm-editor") || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable);
}

function onKey(event) {
  if (event.defaultPrevented) return;
  const mod = event.ctrlKey || event.metaKey;
  if (mod && event.key === "Enter") {
    event.preventDefault();
    run();
  } else if ((event.key === "Escape" && runner && runner.running && !document.querySelector("dialog[open]")) || (event.ctrlKey && event.key === ".")) {
    event.preventDefault();
    stop();
  } else if (event.altKey && event.key === "PageDown") {
    event.preventDefault();
    go(1);
  } else if (event.altKey && event.key === "PageUp") {
    event.preventDefault();
    go(-1);
  } else if (!typing(event.target) && !mod && !event.altKey && !document.querySelector("dialog[open]")) {
    if (event.key === "?") {
      event.preventDefault();
      $("[data-role=help-dialog]").showModal();
    } else if (event.key === "n") go(1);
    else if (event.key === "p") go(-1);
  }
}

// --- service worker ----------------------------------------------------------------------------

// A new build's service worker takes over as soon as it has cached everything (skipWaiting);
// this page keeps running the code it loaded, and says a reload brings the new version.
const hadController = "serviceWorker" in navigator && Boolean(navigator.serviceWorker.controller);
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (hadController) toast("A new version of Loop Lab is ready: reload the page to use it.", 15000);
  });
}

// Registered once Python is ready, so its precaching does not compete with the first load
// (it then mostly revalidates what the HTTP cache already holds).
function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || registerServiceWorker.done) return;
  registerServiceWorker.done = true;
  navigator.serviceWorker.register("sw.js").catch((error) => console.warn("service worker not registered:", error));
}

// --- export / import ---------------------------------------------------------------------------

function exportProgress() {
  const blob = new Blob([JSON.stringify(exportAll(), null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `looplab-progress-${new Date().toISOString().slice(0, 10)}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function importProgress(file) {
  try {
    const count = importAll(JSON.parse(await file.text()));
    toast(`Imported edits for ${count} lesson${count === 1 ? "" : "s"}.`);
    route();
  } catch (error) {
    toast(`Could not import ${file.name}: ${error.message}`);
  }
}

// --- start -------------------------------------------------------------------------------------

async function main() {
  document.addEventListener("keydown", onKey);
  ui.run.addEventListener("click", run);
  ui.stop.addEventListener("click", stop);
  ui.reset.addEventListener("click", () => {
    if (view && confirm("Reset this lesson to its original code? Your edits to it will be lost.")) {
      view.reset();
      renderList();
    }
  });
  ui.toggle.addEventListener("click", () => {
    settings.setMode(settings.live ? "scripted" : "live");
    showMode();
    if (settings.live && settings.problem()) openSettings();
    if (pythonInfo) status(`Ready · ${settings.live ? `live model ${settings.values.model} at ${settings.values.baseUrl}` : "scripted model"}`, "ready");
  });
  dialog = setupDialog($("[data-role=settings-dialog]"), settings, { onSave: showMode });
  ui.settings.addEventListener("click", openSettings);
  $("[data-role=theme]").addEventListener("click", toggleTheme);
  $("[data-role=help]").addEventListener("click", () => $("[data-role=help-dialog]").showModal());
  $("[data-role=prev]").addEventListener("click", () => go(-1));
  $("[data-role=next]").addEventListener("click", () => go(1));
  $("[data-role=export]").addEventListener("click", exportProgress);
  const importFile = $("[data-role=import]");
  $("[data-role=import-button]").addEventListener("click", () => importFile.click());
  importFile.addEventListener("change", () => {
    if (importFile.files[0]) importProgress(importFile.files[0]);
    importFile.value = ""; // the same file can be imported again
  });
  const menu = $("[data-role=menu]");
  const setMenu = (open) => {
    document.body.classList.toggle("menu-open", open);
    menu.setAttribute("aria-expanded", String(open));
  };
  menu.addEventListener("click", () => setMenu(!document.body.classList.contains("menu-open")));
  ui.list.addEventListener("click", () => setMenu(false));
  document.addEventListener("keydown", (event) => {  // Esc closes the phone's lesson drawer
    if (event.key === "Escape" && document.body.classList.contains("menu-open")) {
      setMenu(false);
      menu.focus();
    }
  });
  for (const button of document.querySelectorAll(".phone-tabs button")) button.addEventListener("click", () => setTab(button.dataset.tab));
  for (const tab of document.querySelectorAll(".panel-tabs [role=tab]")) tab.addEventListener("click", () => setPanel(tab.dataset.panel));
  window.addEventListener("hashchange", route);
  announceRuns(ui.status, byTest("checks"), byTest("announcer"));
  showMode();

  let build;
  try {
    build = await fetchJSON("build.json");
  } catch (error) {
    status(`The site could not load its build information (${error.message}). Reload the page.`, "crashed");
    return;
  }
  for (const key of ["indexURL", "lockFileURL"]) build[key] = new URL(build[key], document.baseURI).href;
  startRunner(build); // Python loads in the worker while the lesson renders
  try {
    lessons = (await fetchJSON("lessons/index.json")).lessons;
    await route();
  } catch (error) {
    status(`The lessons could not be loaded (${error.message}).`, "crashed");
  }
  updateButtons();
}

main();
