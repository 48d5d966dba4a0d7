// The page: the lesson on screen, its runs, and the wiring of the parts (chrome.js, lessonlist.js,
// progressfile.js, shortcuts.js, panels.js, settings.js). Python runs in a worker (runner.js);
// the page never blocks on it.
//
// One run, one lesson: a run belongs to the lesson view it was started for. Its output, events
// and results are drawn only while that view is on screen (its progress is saved either way).
// A Run pressed while a lesson is on its way, or while the last lesson's run is still stopping,
// waits and then runs the lesson being opened; opening yet another lesson cancels it.

import { Runner } from "./runner.js";
import { LessonView } from "./lessonview.js";
import { Output, Trace, Context, showChecks, tally, describeTally } from "./panels.js";
import { announceRuns } from "./announce.js";
import { Settings, setupDialog } from "./settings.js";
import { loadProgress, saveProgress } from "./storage.js";
import { StatusLine, setupTheme, setupTabs, setupDrawer, setupHelp, serviceWorker } from "./chrome.js";
import { renderLessonList } from "./lessonlist.js";
import { readIndex } from "./lessonformat.js";
import { setupProgressFile } from "./progressfile.js";
import { setupShortcuts } from "./shortcuts.js";
import { setupApproval } from "./approval.js";
import { isolate } from "./isolation.js";
import { Inspector } from "./inspector.js";
import { setupPrices } from "./prices.js";
import { readHash, decodeShare, setupShare, showAside } from "./share.js";
import { toNotebook } from "./notebook.js";
import { putShared, swapAside, asideState } from "./storage.js";
import { redact } from "../shared/redact.js";
import { LocalModel } from "./localmodel.js";
import { setupLocalSettings } from "./localsettings.js";

const $ = (selector) => document.querySelector(selector);
const byTest = (id) => document.querySelector(`[data-testid="${id}"]`);

const ui = {
  list: byTest("lesson-list"),
  text: byTest("lesson-text"),
  checks: byTest("checks"),
  run: byTest("run"),
  stop: byTest("stop"),
  reset: byTest("reset"),
  toggle: byTest("model-toggle"),
  settings: byTest("settings"),
  title: $("[data-role=title]"),
  modified: $("[data-role=modified]"),
};

const status = new StatusLine({ root: byTest("status"), text: $("[data-role=status-text]"), progress: $("[data-role=progress]"), toast: $("[data-role=toast]") });
const output = new Output(byTest("output"));
const trace = new Trace(byTest("trace"));
const context = new Context(byTest("context-view"));
const settings = new Settings();
let drawLocal = () => {}; // the Settings dialog's local-model status (localsettings.js)
const local = new LocalModel((state) => drawLocal(state));
const registerServiceWorker = serviceWorker(() => status.toast("A new version of Loop Lab is ready: reload the page to use it.", 15000));

let lessons = [];
let view = null; // the LessonView on screen
let current = null; // its entry in lessons/index.json
let showing = 0; // the latest showLesson call: its lesson is on screen, or on its way
let shown = 0; // the showLesson call whose lesson is on screen
let active = null; // the run in progress: {view, meta}
let wanted = 0; // a Run pressed for the lesson of showLesson call N, not started yet
let runner = null;
let pythonInfo = null;
let loadingSince = performance.now();
let shownModified = null; // the lesson's "modified" state as the list shows it
let editorKeys = [];
let setTab = () => {};
let dialog = null;
let approve = null; // the approval dialog's ask (approval.js)
let notIsolated = ""; // why the page is not cross-origin isolated (isolation.js), when it is not
let inspector = null; // the run inspector (inspector.js)
let prices = () => ({ input: 0, output: 0 });
let shown_lesson = null; // lessons/<slug>.json of the lesson on screen

const modeName = () => settings.mode;

// --- the lesson on screen ----------------------------------------------------------------------

async function fetchJSON(url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

async function showLesson(slug) {
  const meta = lessons.find((l) => l.slug === slug) || lessons[0];
  if (!meta) {
    ui.text.replaceChildren(Object.assign(document.createElement("p"), { textContent: "No lessons yet." }));
    return;
  }
  const ticket = ++showing; // an earlier call still loading must not replace this one
  if (runner && runner.running) runner.stop(); // leaving a lesson stops its run
  updateButtons();
  const lesson = await fetchJSON(`lessons/${meta.slug}.json`);
  if (ticket !== showing) return;
  current = meta;
  shown = ticket;
  shownModified = null;
  document.title = `${meta.title} · Loop Lab`;
  ui.title.textContent = meta.title;
  view = new LessonView(ui.text, lesson, meta, { onModified, keys: editorKeys });
  shown_lesson = lesson;
  const aside = asideState(meta.slug);
  if (aside) showAside(ui.text, { shared: aside.shared, onSwap: () => { swapAside(meta.slug); showLesson(meta.slug); } });
  onModified(view.modified()); // draws the list, with this lesson marked current
  output.clear();
  trace.clear();
  context.clear();
  inspector.clear();
  const record = loadProgress()[meta.slug];
  delete ui.checks.dataset.running;
  showChecks(ui.checks, (record && record.results) || [], { pending: !record });
  if (record && record.results) ui.checks.dataset.stale = "true";
  else delete ui.checks.dataset.stale;
  ui.text.scrollTop = 0;
  $("#lesson").scrollTop = 0;
  ui.text.dataset.slug = meta.slug;
  document.body.dataset.lesson = meta.slug;
  if (!performance.getEntriesByName("looplab:prose").length) {
    requestAnimationFrame(() => performance.mark("looplab:prose")); // first prose on screen (bench/startup.py)
  }
  followLesson();
  updateButtons();
  startWanted();
}

// The status line never goes on describing a lesson that has left the screen.
function followLesson() {
  if (active) status.show(`Opened ${current.title}; stopping the run of ${active.meta.title}…`, "stopping", { about: view });
  else if (!status.about || status.about === view) return;
  else if (runner && runner.ready) status.show(`Ready · ${current.title} · ${modeName()} model`, "ready", { about: view });
  else status.show(`${current.title} · Python is starting again…`, "loading", { about: view });
}

async function route() {
  const { slug, share } = readHash(location.hash);
  if (share !== null) return openShared(slug, share);
  return showLesson(slug);
}

// A shared link (share.js): its code goes into the lesson, the learner's own edits are kept aside;
// the address loses the data, so a reload shows the lesson as it now is.
async function openShared(slug, data) {
  history.replaceState(null, "", `#/${encodeURIComponent(slug)}`);
  const meta = lessons.find((l) => l.slug === slug);
  let payload = null;
  try {
    if (!meta) throw new Error(`it names a lesson this site does not have (${slug})`);
    payload = await decodeShare(data);
    const lesson = await fetchJSON(`lessons/${meta.slug}.json`);
    const editable = Object.entries(payload.cells).filter(([i]) => ["code", "exercise"].includes(lesson.cells[i]?.role));
    const originals = Object.fromEntries(editable.map(([i]) => [i, lesson.cells[i].source]));
    putShared(meta.slug, meta.hash, Object.fromEntries(editable), originals);
  } catch (error) {
    status.toast(`This shared link could not be opened: ${error.message}. The lesson shows as you left it.`, 8000);
    payload = null;
  }
  await showLesson(slug);
  if (payload && payload.run) {
    try {
      inspector.load(payload.run, "the shared link's run");
    } catch (error) {
      status.toast(`The shared link's run could not be opened: ${error.message}`, 6000);
    }
  }
}

function go(delta) {
  if (!current) return;
  const index = lessons.findIndex((l) => l.slug === current.slug);
  const next = lessons[index + delta];
  if (next) location.hash = `#/${next.slug}`;
}

function renderList() {
  renderLessonList(ui.list, lessons, current && current.slug);
}

// Called on every edit: the list is drawn again only when the lesson's modified state changes.
function onModified(modified) {
  ui.modified.hidden = !modified;
  if (modified === shownModified) return;
  shownModified = modified;
  renderList();
}

// --- running -----------------------------------------------------------------------------------

const runningHere = () => Boolean(active && active.view === view && shown === showing);

function updateButtons() {
  // aria-disabled, not disabled: a focused button that stops working keeps the focus (run() and
  // stop() ignore a press that cannot work; Run then says that Python is still loading)
  ui.run.setAttribute("aria-disabled", String(!runner || !runner.ready || !view || runningHere()));
  ui.stop.setAttribute("aria-disabled", String(!(runningHere() || wanted)));
  document.body.dataset.running = String(Boolean(active));
}

/** Run (the button, Ctrl/Cmd+Enter): the lesson on screen, or the one on its way once it is shown. */
function run() {
  if (!view) return;
  if (!runner || (!runner.ready && !pythonInfo)) {
    status.toast("Python is still loading; Run works as soon as the status line says Ready.", 3000);
    return;
  }
  if (runningHere()) return;
  wanted = showing;
  startWanted();
  if (wanted && shown === showing && !active) status.toast(`${current.title} runs as soon as Python is ready again.`, 3000);
}

function startWanted() {
  if (wanted && wanted !== showing) wanted = 0; // another lesson was opened since
  if (wanted && shown === showing && !active && runner && runner.ready) {
    wanted = 0;
    start();
  }
  updateButtons();
}

async function start() {
  if (settings.live) {
    const problem = settings.problem();
    if (problem) {
      status.toast(`Live model: ${problem}.`);
      dialog.open();
      return;
    }
  }
  if (settings.mode === "local" && !runner.isolated) {
    const text = "The local model needs a cross-origin isolated page (Python waits for its reply on shared memory): reload the page (Loop Lab isolates itself on the second load), or serve it with `make serve`.";
    status.toast(text, 10000);
    status.show(`Local model: ${text}`, "stopped", { about: view });
    return;
  }
  if (settings.mode === "local" && !local.available()) {
    status.toast("Local model: pick a .gguf file in Settings first.");
    dialog.open();
    return;
  }
  const run = { view, meta: current, step: 0 };
  active = run;
  output.clear();
  trace.clear();
  context.clear();
  inspector.clear();
  delete ui.checks.dataset.stale;
  ui.checks.dataset.running = "true";
  const started = performance.now();
  status.stamp({ runStarted: started, runEnded: undefined, extrasMs: undefined });
  status.show(`Running ${run.meta.title} with the ${modeName()} model…`, "running", { about: view });
  if (document.body.dataset.tab !== "output" && matchMedia("(max-width: 760px)").matches) setTab("output");
  const promise = runner.run(view.cells(), { env: settings.env(), on: runCallbacks(run) });
  updateButtons();
  const result = await promise;
  active = null;
  inspector.resumed();
  const ended = performance.now();
  // bench/startup.py and bench/sdk_browser.py read these
  status.stamp({ runEnded: ended, extrasMs: result.extras ? result.extras.ms : undefined });
  delete ui.checks.dataset.running;
  if (view === run.view) report(run, result, ((ended - started) / 1000).toFixed(2));
  else left(run, result);
  updateButtons();
  startWanted();
}

/** What a run (or a fork) sends the page goes to the panels while its lesson is on screen. */
function runCallbacks(run, eventOptions) {
  const onScreen = (draw) => (value) => view === run.view && draw(value);
  return {
    stdout: onScreen((text) => output.write(text, "stdout")),
    stderr: onScreen((text) => output.write(text, "stderr")),
    event: onScreen((event) => {
      if (event.type === "model_call") run.step = event.step;
      trace.add(event);
      context.add(event);
      inspector.add(event, eventOptions);
    }),
    ask: (kind, request, options) => askPage(run, kind, request, options),
  };
}

// Python asks the page (asking.js): approvals (looplab's ask_person) and the local model. The
// inspector shows an approval's pause on the run's step while the dialog waits.
function askPage(run, kind, request, options) {
  if (kind === "model") return askLocal(request, options); // the local model (localmodel.js)
  if (kind !== "approval" || view !== run.view) return { unavailable: `the page has no answer to a "${kind}" question here` };
  inspector.paused(request);
  return Promise.resolve(approve(request, { ...options, step: run.step })).finally(() => inspector.resumed());
}

/** Fork a run from a step (inspector.js): the worker re-runs it; its events go to the panels. */
async function fork(request) {
  if (!runner || !runner.ready || runner.running) return { ok: false, error: "Python is busy: wait for the run to end, then fork." };
  const run = { view, meta: current, step: 0 };
  active = run;
  updateButtons();
  status.show(`Forking run #${request.run} from step ${request.step}…`, "running", { about: view });
  const result = await runner.fork(request, { env: settings.env(), on: runCallbacks(run, { source: "fork" }) });
  active = null;
  inspector.resumed();
  updateButtons();
  startWanted();
  const f = result.fork;
  if (view === run.view) {
    if (result.outcome !== "checked") status.show("Stopped the fork.", "stopped", { about: view });
    else if (f) status.show(`Fork done: ${f.stopped} after ${f.steps} step${f.steps === 1 ? "" : "s"}${f.first_difference ? `; it differs from step ${f.first_difference}` : "; no step differs"}.`, "passed", { about: view });
    else status.show(result.error || "The fork did not run.", "failed", { about: view });
  }
  return result;
}

function whyNoFork(run) {
  if (run.source === "imported") return "An imported run cannot be forked here: its model and tools are not in this page.";
  if (run.source === "gone") return "Python was restarted since this run: run the lesson again to fork it.";
  if (!run.stop) return "The run has not ended yet.";
  if (!runner || !runner.ready || runner.running) return "Python is busy: wait for the run to end.";
  return null;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([redact(text, settings.apiKey)], { type: "application/json" }));
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** What a shared link holds: the lesson, the cells the learner changed, and the run shown. */
function sharePayload({ withRun }) {
  if (!view || !shown_lesson) return null;
  const cells = {};
  view.cells().forEach((cell, index) => {
    if (cell.source !== shown_lesson.cells[index].source && view.editors.has(index)) cells[index] = cell.source;
  });
  const payload = { v: 1, lesson: current.slug, hash: current.hash, cells };
  const run = withRun ? inspector.shownRun() : null;
  if (run) payload.run = run;
  return payload;
}

function downloadNotebook() {
  if (!view || !shown_lesson) return;
  const sources = view.cells().map((cell) => cell.source);
  download(`${current.slug}.ipynb`, JSON.stringify(toNotebook(shown_lesson, sources), null, 1));
}

// A run of the lesson on screen ended: its panels and the status line say how.
function report(run, result, seconds) {
  const { slug, title } = run.meta;
  if (result.outcome === "crashed") {
    output.note(result.message);
    status.show(`${result.message} Starting Python again…`, "crashed");
    showChecks(ui.checks, [], {});
    return;
  }
  if (result.outcome !== "checked") {
    const restarted = result.outcome === "restarted";
    output.note(restarted ? "Stopped. (Python did not answer the interrupt, so it was restarted; your code is kept.)" : "Stopped: KeyboardInterrupt.");
    showChecks(ui.checks, [], {});
    status.show(`Stopped ${title} after ${seconds} s.${restarted ? " Starting Python again…" : ""}`, "stopped", { about: run.view });
    return;
  }
  if (result.error) output.write(result.error + "\n", "error");
  showChecks(ui.checks, result.checks);
  const record = progressRecord(result);
  saveProgress(slug, record);
  renderList();
  status.show(`Done in ${seconds} s · ${title}: ${describeTally(tally(result.checks))}${result.error ? " · your code raised an error (see Output)" : ""}`,
    record.passed ? "passed" : "failed", { about: run.view });
}

// A run of a lesson the learner has left ended (opening the other lesson stopped it): nothing of
// it is drawn; finished checks are saved; the status line speaks of the lesson on screen.
function left(run, result) {
  if (result.outcome === "crashed") return; // said by the crashed callback
  if (result.outcome === "checked") {
    saveProgress(run.meta.slug, progressRecord(result));
    renderList();
    status.show(`Opened ${current.title}; ${run.meta.title} had finished (${describeTally(tally(result.checks))}).`, "ready", { about: view });
  } else {
    const restarted = result.outcome === "restarted";
    status.show(`Stopped ${run.meta.title}: you opened ${current.title}.${restarted ? " Starting Python again…" : ""}`, "stopped", { about: view });
  }
}

/** A lesson passes when its code raised nothing and no check failed (and one at least passed:
 * claims not checked with a live model alone do not make a pass), as looplab's LessonResult.ok. */
function progressRecord(result) {
  const counts = tally(result.checks);
  const passed = !result.error && counts.passed > 0 && counts.failed === 0;
  return { passed, checks: counts.passed, total: result.checks.length, at: Date.now(), results: result.checks };
}

/** Stop (the button, Esc, Ctrl+.): the run of the lesson on screen, or a Run still waiting. */
function stop() {
  wanted = 0;
  if (runningHere() && runner.running) {
    status.show("Stopping…", "stopping", { about: view });
    runner.stop();
  }
  updateButtons();
}

/** How Python started, for the ready line: from a snapshot, or loaded (and which snapshot was refused). */
function describeStart(start) {
  if (!start) return "";
  if (start.source) return " from a snapshot";
  return start.refused.length ? ` (snapshot refused: ${start.refused.join("; ")})` : "";
}

function startedFrom(start) {
  return start && start.source ? `snapshot:${start.source}` : start && start.refused.length ? "load:refused" : "load";
}

function startRunner(build) {
  runner = new Runner(build, {
    starting({ restart }) {
      // After a Stop that had to terminate, or a crash, a new worker loads: the status line shows it.
      if (restart) loadingSince = performance.now();
      if (restart && inspector) inspector.forget(); // the runs it kept for forks went with it
      updateButtons();
    },
    progress({ stage, loaded, total }) {
      if (runner && runner.ready) return;
      status.loading(loaded, total);
      status.show(`${stage[0].toUpperCase() + stage.slice(1)}… ${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`, "loading", { stage });
    },
    ready(info) {
      pythonInfo = info;
      status.loaded();
      const ms = Math.round(performance.now() - loadingSince);
      status.stamp({ readyAt: performance.now(), workerTimes: JSON.stringify({ ...info.times, start: info.times.start - performance.timeOrigin }) });
      if (!performance.getEntriesByName("looplab:ready").length) performance.mark("looplab:ready");
      status.stamp({ startedFrom: startedFrom(info.start) });
      status.show(`Ready · Python ${info.python} (Pyodide ${info.pyodide}) in ${(ms / 1000).toFixed(1)} s${describeStart(info.start)} · ${modeName()} model${info.isolated ? "" : ` · Stop restarts Python (page is not cross-origin isolated${notIsolated ? `: ${notIsolated}` : ""})`}`, "ready", { stage: "ready" });
      registerServiceWorker();
      startWanted(); // a Run pressed while Python was starting again
    },
    crashed(message, { restart }) {
      loadingSince = performance.now();
      const text = restart ? message : `${message} Reload the page to try again.`;
      status.show(text, "crashed");
      status.toast(text);
      if (!restart) wanted = 0;
      updateButtons();
    },
  });
}

// --- model toggle and settings -----------------------------------------------------------------

function showMode() {
  ui.toggle.value = settings.mode;
  ui.toggle.dataset.mode = settings.mode;
  document.body.dataset.mode = settings.mode;
}

function modeSummary() {
  if (settings.live) return `live model ${settings.values.model} at ${settings.values.baseUrl}`;
  if (settings.mode === "local") return `local model: ${local.text}`;
  return "scripted model";
}

function changeMode() {
  settings.setMode(ui.toggle.value);
  showMode();
  if (settings.live && settings.problem()) dialog.open();
  if (settings.mode === "local") useLocal();
  if (pythonInfo) status.show(`Ready · ${modeSummary()}`, "ready");
}

// Local mode: the model kept in this browser loads at once (no picker); with none kept, or on a
// page that cannot wait for it (not cross-origin isolated), the learner is told what to do.
function useLocal() {
  if (!self.crossOriginIsolated) {
    status.toast("The local model needs a cross-origin isolated page: reload it (Loop Lab isolates itself on the second load), or serve it with `make serve`.", 10000);
  }
  local.ensure().then((ready) => {
    if (!ready && settings.mode === "local" && local.state !== "loading") dialog.open();
  });
}

// Python's "model" question (looplab/models/local.py): only a run that can wait gets the engine.
function askLocal(request, { blocking, signal }) {
  if (!blocking) return { unavailable: "the page is not cross-origin isolated" };
  if (settings.mode !== "local") return { error: "the model toggle is not on local", kind: "setup" };
  return local.answer(request, { signal, temperature: settings.temperature });
}

// --- start -------------------------------------------------------------------------------------

async function main() {
  const help = setupHelp($("[data-role=help]"), $("[data-role=help-dialog]"));
  editorKeys = setupShortcuts({ run, stop, stoppable: () => runningHere() || Boolean(wanted), go, help });
  ui.run.addEventListener("click", run);
  ui.stop.addEventListener("click", stop);
  ui.reset.addEventListener("click", () => {
    if (view && confirm("Reset this lesson to its original code? Your edits to it will be lost.")) {
      view.reset();
      renderList();
    }
  });
  ui.toggle.addEventListener("change", changeMode);
  dialog = setupDialog($("[data-role=settings-dialog]"), settings, { onSave: showMode });
  drawLocal = setupLocalSettings($("[data-role=local-model]"), local);
  drawLocal(local);
  ui.settings.addEventListener("click", () => dialog.open());
  approve = setupApproval($("[data-role=approval-dialog]"));
  prices = setupPrices($("[data-role=settings-dialog]"));
  inspector = new Inspector($("[data-role=inspector]"), {
    fork, whyNoFork, download, prices: () => prices(),
    lesson: () => (current ? current.slug : null),
    model: () => (settings.live ? settings.values.model : ""),
  });
  setupShare({ button: byTest("share"), dialog: $("[data-role=share-dialog]") }, { payload: sharePayload, secret: () => settings.apiKey });
  $("[data-role=notebook]").addEventListener("click", downloadNotebook);
  setupTheme($("[data-role=theme]"));
  $("[data-role=prev]").addEventListener("click", () => go(-1));
  $("[data-role=next]").addEventListener("click", () => go(1));
  setupProgressFile(
    { exportButton: $("[data-role=export]"), importButton: $("[data-role=import-button]"), input: $("[data-role=import]") },
    {
      imported(count) {
        status.toast(`Imported edits for ${count} lesson${count === 1 ? "" : "s"}.`);
        route();
      },
      failed: (text) => status.toast(text),
    });
  setupDrawer($("[data-role=menu]"), ui.list);
  setTab = setupTabs({
    phoneButtons: document.querySelectorAll(".phone-tabs button"),
    panelTabs: document.querySelectorAll(".panel-tabs [role=tab]"),
    panelBodies: document.querySelectorAll("[data-panel-body]"),
  });
  window.addEventListener("hashchange", route);
  announceRuns(byTest("status"), ui.checks, byTest("announcer"));
  showMode();
  if (settings.mode === "local") useLocal();

  let build;
  try {
    build = await fetchJSON("build.json");
  } catch (error) {
    status.show(`The site could not load its build information (${error.message}). Reload the page.`, "crashed");
    return;
  }
  for (const key of ["indexURL", "lockFileURL"]) build[key] = new URL(build[key], document.baseURI).href;
  const shown = showFirstLesson();
  const isolation = await isolate(registerServiceWorker, (text) => status.show(text, "loading", { stage: "isolating" }));
  if (isolation.reloading) return; // a first visit on a host without COOP/COEP: Python starts after the reload
  notIsolated = isolation.why || "";
  startRunner(build); // Python loads in the worker while the lesson renders
  await shown;
  updateButtons();
}

async function showFirstLesson() {
  try {
    lessons = readIndex(await fetchJSON("lessons/index.json"));
    await route();
  } catch (error) {
    const text = `The lessons could not be loaded (${error.message}).`;
    status.show(text, "crashed");
    ui.text.replaceChildren(Object.assign(document.createElement("p"), { role: "alert", textContent: text })); // stays when Python is ready
  }
  updateButtons();
}

main();
