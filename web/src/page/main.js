// The page's entry: it finds the elements, builds the parts (chrome.js, lessonlist.js, output.js,
// settings.js, inspector.js …) and carries out what the session decides (session.js: the lesson
// on screen and the run state machine; the rules live there, not here). Python runs in a worker
// (runner.js, the one owner of a run in flight); the page never blocks on it.

import { Runner } from "./run/runner.js";
import { LessonScreen } from "./lesson/screen.js";
import { Output } from "./panels/output.js";
import { EventLog } from "./panels/eventlog.js";
import { Context } from "./panels/context.js";
import { FilesPanel } from "./panels/files.js";
import { announceRuns } from "./ui/announce.js";
import { Settings, setupDialog } from "./model/settings.js";
import { StatusLine, setupTheme, setupTabs, setupDrawer, setupHelp, serviceWorker } from "./ui/chrome.js";
import { renderLessonList } from "./lesson/lessonlist.js";
import { readIndex } from "./lesson/lessonformat.js";
import { setupProgressFile } from "./lesson/progressfile.js";
import { setupShortcuts } from "./ui/shortcuts.js";
import { setupApproval } from "./panels/approval.js";
import { askLine } from "./panels/stdin.js";
import { isolate } from "./start/isolation.js";
import { Inspector } from "./inspector/inspector.js";
import { setupPrices } from "./model/prices.js";
import { readHash, openShared, setupShare } from "./lesson/share.js";
import { LocalModel } from "./model/localmodel.js";
import { setupLocalSettings } from "./model/localsettings.js";
import { createStore, controls, whyNoFork } from "./run/session.js";
import { reports } from "./run/report.js";
import { modes } from "./model/modes.js";
import { download, sharePayload, downloadNotebook } from "./lesson/exports.js";
import { codeOrigin, foreignSource, trustCode } from "./ui/storage.js";
import { carriedCells } from "./run/carried.js";
import { notebookCells, realmOf, takeForeign } from "./lesson/foreign.js";
import { Chat, chatElements, chatHooks } from "./chat/chat.js";
import { runWiring } from "./run/runwiring.js";
import { startEarly } from "./start/early.js";
import { warmCodeOnTakeOver } from "./start/codecache.js";
import { holdEditors } from "./lesson/lazyeditor.js";
import { setupProof, viewOf } from "./proof/proofview.js";
import { thisVisit } from "./start/visit.js";

const $ = (selector) => document.querySelector(selector);
const byTest = (id) => document.querySelector(`[data-testid="${id}"]`);

async function fetchJSON(url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

const fetchLesson = (meta) => fetchJSON(`lessons/${meta.slug}.json`);

function findElements() {
  return {
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
    status: byTest("status"),
  };
}

async function main() {
  performance.mark("looplab:app"); // the app bundle runs (after early.js started Python's worker)
  const ui = findElements();
  const store = createStore();
  holdEditors(new Promise((resolve) => store.subscribe((state) => state.python !== "starting" && resolve()))); // Python first
  const status = new StatusLine({
    root: ui.status,
    text: $("[data-role=status-text]"),
    progress: $("[data-role=progress]"),
    toast: $("[data-role=toast]"),
  });
  const output = new Output(byTest("output"));
  const events = new EventLog(byTest("trace"));
  const context = new Context(byTest("context-view"));
  const files = new FilesPanel(byTest("files"), {
    tab: $("#tab-files"),
    ask: (op) => runner.files(op),
    lesson: () => store.state.lesson && store.state.lesson.slug,
    busy: () => controls(store.state).running,
  });
  const settings = new Settings();
  const visit = thisVisit();
  const registerServiceWorker = serviceWorker(
    () => status.toast("A new version of Loop Lab is ready: reload the page to use it.", 15000),
    visit.warm,
  );
  const dialog = setupDialog($("[data-role=settings-dialog]"), settings, {
    onSave() {
      mode.show();
      chat.modelChanged(); // its header names the model in use
      // a new endpoint or key: a new worker holds it, under the new policy (worker/transport.js)
      if (runner && runner.renew())
        status.show("Settings saved: Python starts again with the new endpoint and key…", "loading");
    },
  });
  const local = new LocalModel((state) => drawLocal(state), visit);
  const drawLocal = setupLocalSettings($("[data-role=local-model]"), local);
  let runner = null; // made once the page knows whether it is isolated
  const mode = modes({
    toggle: ui.toggle,
    settings,
    local,
    status,
    openDialog: () => dialog.open(),
    isolated: () => visit.isolated,
    foreign: () => store.state.lesson && foreignSource(store.state.lesson.slug),
  });
  const approve = setupApproval($("[data-role=approval-dialog]"));
  const prices = setupPrices($("[data-role=settings-dialog]"));
  const renderList = () =>
    renderLessonList(ui.list, store.state.lessons, store.state.lesson && store.state.lesson.slug);
  const say = reports({ status, output, checks: ui.checks, renderList, mode: mode.name, modeNote: mode.note });
  // A Run pressed right after a lesson link runs that lesson (session.js), even when the press is
  // heard before the address change's hashchange event: the address is read first.
  let routed = null; // the address route() last read (null: not yet)
  const run = () => {
    if (routed !== null && location.hash !== routed) route();
    store.dispatch({ type: "run" });
  };
  const stop = () => store.dispatch({ type: "stop" });
  const help = setupHelp($("[data-role=help]"), $("[data-role=help-dialog]"));
  const editorKeys = setupShortcuts({ run, stop, stoppable: () => !controls(store.state).stopDisabled, go, help });
  const setTab = setupTabs({
    phoneButtons: document.querySelectorAll(".phone-tabs button"),
    panelTabs: document.querySelectorAll(".panel-tabs [role=tab]"),
    panelBodies: document.querySelectorAll("[data-panel-body]"),
  });
  const fetched = new Map(); // a shared link's lesson, fetched for its edits: the view takes it, not a second fetch
  const lessonOf = (meta) =>
    (fetched.has(meta.slug) ? Promise.resolve(fetched.get(meta.slug)) : fetchLesson(meta)).finally(() =>
      fetched.delete(meta.slug),
    );
  const screen = new LessonScreen(
    { ...ui, scroller: $("#lesson") },
    {
      renderList,
      clearPanels,
      keys: editorKeys,
      reopen: (slug) => store.dispatch({ type: "open", slug }),
      choose(slug, chosen) {
        // the learner read the code from elsewhere and chose their model for it: a Python with the key
        trustCode(slug);
        ui.toggle.value = chosen;
        mode.change(store.state.everReady);
        chat.modelChanged();
        prepare();
      },
    },
  );
  const inspector = new Inspector($("[data-role=inspector]"), {
    fork: (request) => store.dispatch({ type: "fork", request })[0],
    whyNoFork: (run) => whyNoFork(store.state, run),
    download: (name, text) => download(name, text, settings.apiKey),
    prices: () => prices(),
    lesson: () => (store.state.lesson ? store.state.lesson.slug : null),
    model: () => (settings.live ? settings.values.model : ""),
  });

  // A panel comes forward where the learner looks (Python asks for an answer there): on a phone the
  // panels' view first, then its tab.
  const forward = (name) => {
    if (document.body.dataset.tab !== "output" && matchMedia("(max-width: 760px)").matches) setTab("output");
    const tab = $(`#tab-${name}`);
    if (tab.getAttribute("aria-selected") !== "true") tab.click();
  };
  const { runCallbacks, launch } = runWiring({
    store,
    output,
    events,
    context,
    inspector,
    mode,
    approve,
    status,
    files,
    forward,
  });
  const chat = new Chat(
    chatElements(byTest),
    chatHooks({
      store,
      mode,
      inspector,
      status,
      output,
      forward,
      askLine,
      tab: (name) => $(`#tab-${name}`).click(),
    }),
  );

  function go(delta) {
    const { lessons, lesson } = store.state;
    if (!lesson) return;
    const after = lessons[lessons.findIndex((l) => l.slug === lesson.slug) + delta];
    if (after) location.hash = `#/${after.slug}`;
  }

  function clearPanels() {
    for (const panel of [output, events, context, files, inspector]) panel.clear();
  }

  /** The Python the lesson on screen's code may run in (foreign.js realmOf). */
  const realm = () => realmOf(store.state.lesson && codeOrigin(store.state.lesson.slug));

  /** A Python that fits the lesson on screen, started now while the learner reads (runner.js). */
  function prepare() {
    if (runner && store.state.lesson) runner.prepare(realm());
  }

  function route() {
    routed = location.hash;
    const view = viewOf(location.hash);
    if (view) return Promise.resolve(proof.show(view));
    proof.hide();
    const { slug, share } = readHash(location.hash);
    const open = (name) => Promise.all(store.dispatch({ type: "open", slug: name }));
    if (share === null) return open(slug);
    const keep = (meta) => fetchLesson(meta).then((lesson) => (fetched.set(meta.slug, lesson), lesson));
    return openShared(slug, share, {
      lessons: store.state.lessons,
      fetchLesson: keep,
      open,
      toast: (...a) => status.toast(...a),
      openRun: (shared) => inspector.load(shared, "the shared link's run"),
    });
  }

  store.handle({
    empty: () =>
      ui.text.replaceChildren(Object.assign(document.createElement("p"), { textContent: "No lessons yet." })),
    load: ({ ticket, meta }) =>
      lessonOf(meta).then((lesson) => void store.dispatch({ type: "shown", ticket, meta, lesson })),
    draw: (effect) => (screen.draw(effect), chat.show(effect.meta.slug, screen.now.view.cells()), prepare()),
    follow: say.follow,
    toast({ say: what, meta }) {
      if (what === "loading")
        status.toast("Python is still loading; Run works as soon as the status line says Ready.", 3000);
      else status.toast(`${meta.title} runs as soon as Python is ready again.`, 3000);
    },
    start({ ticket, meta }) {
      if (!mode.canRun(ticket)) return;
      clearPanels();
      delete ui.checks.dataset.stale;
      ui.checks.dataset.running = "true";
      const at = performance.now();
      status.stamp({ runStarted: at, runEnded: undefined, extrasMs: undefined });
      status.show(`Running ${meta.title} with the ${mode.name()} model…`, "running", { about: ticket });
      if (document.body.dataset.tab !== "output" && matchMedia("(max-width: 760px)").matches) setTab("output");
      const cells = screen.now.view.cells();
      // the runner takes the run now (a Stop or a new endpoint ends it from here on); Python gets it
      // once the lessons it reuses are here
      const carried = carriedCells(cells, store.state.lessons, fetchLesson).catch(() => ({})); // a lesson that cannot be fetched: mine() reads the site's file, or says it cannot
      launch(
        "run",
        runner.run(cells, { carried, env: settings.env(mode.current()), on: runCallbacks(ticket), realm: realm() }),
        at,
      );
    },
    stop({ say: saying, ticket }) {
      if (saying) status.show("Stopping…", "stopping", { about: ticket });
      runner.stop();
    },
    ended: (effect) => say.ended(effect, store.state.shown),
    fork({ request, ticket }) {
      status.show(`Forking run #${request.run} from step ${request.step}…`, "running", { about: ticket });
      return launch(
        "fork",
        runner.fork(request, {
          env: settings.env(mode.current()),
          on: runCallbacks(ticket, { source: "fork" }),
          realm: realm(),
        }),
        performance.now(),
      );
    },
    chat({ request, ticket }) {
      if (!mode.canRun(ticket))
        return Promise.resolve({ ok: false, error: "The model is not ready: see the message above, then send again." });
      status.show(`Sending your message to the lesson's agent (${mode.name()} model)…`, "running", { about: ticket });
      return launch(
        "chat",
        runner.chat(screen.now.view.cells(), {
          ...request,
          env: settings.env(mode.current()),
          on: chat.callbacks(runCallbacks(ticket)),
          realm: realm(),
        }),
        performance.now(),
      );
    },
    chatted: (effect) => chat.ended(effect),
    refused: ({ error }) => Promise.resolve({ ok: false, error }),
    forked: say.forked,
    forget: () => inspector.forget(),
    ready({ info }) {
      say.ready(info, notIsolated);
      registerServiceWorker();
      prepare(); // (the first worker was started before the lesson's code was known)
    },
    crashed: say.crashed,
  });
  store.subscribe((state) => {
    // aria-disabled, not disabled: a focused button that stops working keeps the focus (Run and
    // Stop ignore a press that cannot work; Run then says that Python is still loading)
    const { runDisabled, stopDisabled, running } = controls(state);
    ui.run.setAttribute("aria-disabled", String(runDisabled));
    ui.stop.setAttribute("aria-disabled", String(stopDisabled));
    document.body.dataset.running = String(running);
  });

  ui.run.addEventListener("click", run);
  ui.stop.addEventListener("click", stop);
  ui.reset.addEventListener("click", () => screen.reset());
  ui.toggle.addEventListener("change", () => {
    mode.change(store.state.everReady);
    chat.modelChanged();
  });
  drawLocal(local);
  ui.settings.addEventListener("click", () => dialog.open());
  setupShare(
    { button: byTest("share"), dialog: $("[data-role=share-dialog]") },
    {
      payload: ({ withRun }) => sharePayload(screen.now, withRun ? inspector.shownRun() : null),
      secret: () => settings.apiKey,
    },
  );
  $("[data-role=notebook]").addEventListener("click", () => downloadNotebook(screen.now, settings.apiKey));
  setupTheme($("[data-role=theme]"));
  $("[data-role=prev]").addEventListener("click", () => go(-1));
  $("[data-role=next]").addEventListener("click", () => go(1));
  setupProgressFile(
    {
      exportButton: $("[data-role=export]"),
      importButton: $("[data-role=import-button]"),
      input: $("[data-role=import]"),
    },
    {
      imported(count) {
        status.toast(`Imported edits for ${count} lesson${count === 1 ? "" : "s"}.`);
        route();
      },
      async notebook(data) {
        // a notebook downloaded from a lesson: its code goes in as a link's does, marked
        const { slug, read } = notebookCells(data);
        history.replaceState(null, "", `#/${encodeURIComponent(slug)}`);
        await takeForeign({
          meta: store.state.lessons.find((l) => l.slug === slug),
          slug,
          from: "notebook",
          read,
          lessonOf: (name) => fetchJSON(`lessons/${name}.json`),
        });
        await route();
      },
      failed: (text) => status.toast(text),
    },
  );
  const proof = setupProof($("[data-role=proof]"), {
    lessons: () => store.state.lessons,
    build: () => early.build,
    fetchLesson,
    fetchText: (meta) =>
      fetch(`lessons/${meta.file}`, { cache: "no-cache" }).then((r) => {
        if (!r.ok) throw new Error(`lessons/${meta.file}: HTTP ${r.status}`);
        return r.text();
      }),
    download: (name, text) => download(name, text, settings.apiKey),
    site: (byTest("version").textContent.match(/Loop Lab (\S+)/) || [])[1] || "",
  });
  setupDrawer($("[data-role=menu]"), ui.list);
  window.addEventListener("hashchange", () => location.hash !== routed && route()); // (a Run may have read it first)
  announceRuns(ui.status, ui.checks, byTest("announcer"));
  mode.show();
  if (settings.mode === "local") mode.useLocal();

  const early = startEarly(); // boot.js started it (the worker with it) before this bundle ran
  const build = await early.build.catch(
    (error) =>
      void status.show(`The site could not load its build information (${error.message}). Reload the page.`, "crashed"),
  );
  if (!build) return;
  warmCodeOnTakeOver(build); // before the service worker can take over (isolate below, or at ready)
  const firstLesson = fetchJSON("lessons/index.json")
    .then((index) => {
      store.dispatch({ type: "listed", lessons: readIndex(index) });
      return route();
    })
    .catch((error) => {
      const text = `The lessons could not be loaded (${error.message}).`;
      status.show(text, "crashed");
      ui.text.replaceChildren(Object.assign(document.createElement("p"), { role: "alert", textContent: text })); // stays when Python is ready
    });
  const isolation = await isolate(registerServiceWorker, (text) =>
    status.show(text, "loading", { stage: "isolating" }),
  );
  if (isolation.reloading) return; // a first visit on a host without COOP/COEP: Python starts after the reload
  const notIsolated = isolation.why || ""; // why the page is not cross-origin isolated, when it is not
  runner = new Runner(build, {
    // Python loads in the worker while the lesson renders
    pool: await early.pool,
    endpoint: () => settings.endpoint(), // what a new worker may reach, and the key it holds
    starting(event) {
      say.starting(event);
      store.dispatch({ type: "starting", ...event });
    },
    progress: (event) => store.state.python !== "ready" && say.progress(event),
    ready: (info) => store.dispatch({ type: "ready", info }),
    swapped: () => inspector.forget(), // the runs kept for forks went with the worker it replaced
    crashed: (message, { restart }) => store.dispatch({ type: "crashed", message, restart }),
  });
  await firstLesson;
}

main();
