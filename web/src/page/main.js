// The page's entry: it finds the elements, builds the parts and wires them; it owns no rule. The
// session (run/session.js) decides what is on screen and when a run goes, run/effects.js carries
// its effects out, and Python runs in a worker (run/runner.js, the one owner of a run in flight)
// that start/ began before this bundle ran (start/README.md numbers the start).

import { createStore, controls, whyNoFork } from "./run/session.js";
import { effects, showControls } from "./run/effects.js";
import { reports } from "./run/report.js";
import { runWiring } from "./run/runwiring.js";
import { startPython } from "./run/python.js";
import { thisVisit } from "./start/visit.js";
import { Chat, chatElements, chatHooks } from "./chat/chat.js";
import { setupModels } from "./model/setup.js";
import { Address } from "./lesson/address.js";
import { setupProofPages } from "./proof/setup.js";
import { LessonScreen } from "./lesson/screen.js";
import { holdEditors } from "./lesson/lazyeditor.js";
import { renderLessonList } from "./lesson/lessonlist.js";
import { setupLessonTools } from "./lesson/tools.js";
import { download } from "./lesson/exports.js";
import { findPanels } from "./panels/panels.js";
import { setupApproval } from "./panels/approval.js";
import { askLine } from "./panels/stdin.js";
import { Inspector } from "./inspector/inspector.js";
import { StatusLine, setupTheme, setupTabs, setupDrawer, setupHelp, serviceWorker, forwarder } from "./ui/chrome.js";
import { announceRuns } from "./ui/announce.js";
import { setupShortcuts } from "./ui/shortcuts.js";
import { codeOrigin, foreignSource, trustCode } from "./ui/storage.js";
import { realmOf } from "./lesson/foreign.js";

const $ = (selector) => document.querySelector(selector);
const byTest = (id) => document.querySelector(`[data-testid="${id}"]`);

async function main() {
  performance.mark("looplab:app"); // the app bundle runs (after early.js started Python's worker)
  const visit = thisVisit();
  const [text, toggle, list] = [byTest("lesson-text"), byTest("model-toggle"), byTest("lesson-list")];
  const store = createStore();
  holdEditors(new Promise((resolve) => store.subscribe((state) => state.python !== "starting" && resolve()))); // Python first
  const status = StatusLine.find($);
  const python = { runner: null, notIsolated: "" }; // the Runner, once the page knows whether it is isolated
  // the Python the lesson on screen's code may run in (foreign.js realmOf); prepare starts it while one reads
  const realm = () => realmOf(store.state.lesson && codeOrigin(store.state.lesson.slug));
  const prepare = () => void (python.runner && store.state.lesson && python.runner.prepare(realm()));
  const panels = findPanels(byTest, {
    tab: $("#tab-files"),
    ask: (op) => python.runner.files(op),
    lesson: () => store.state.lesson && store.state.lesson.slug,
    busy: () => controls(store.state).running,
  });
  const { output, events, context, checks, files } = panels;
  const register = serviceWorker(
    () => status.toast("A new version of Loop Lab is ready: reload the page to use it.", 15000),
    visit.warm,
  );
  const { settings, mode, prices, catalog } = setupModels({
    $,
    toggle,
    button: byTest("settings"),
    status,
    visit,
    foreign: () => store.state.lesson && foreignSource(store.state.lesson.slug),
    everReady: () => store.state.everReady,
    renew: () => Boolean(python.runner && python.runner.renew()),
    changed: () => chat.modelChanged(), // its header names the model in use
  });
  const renderList = () =>
    renderLessonList(list, store.state.lessons, store.state.lesson && store.state.lesson.slug, store.state.estimate);
  const say = reports({ status, output, checks, renderList, mode: mode.name, modeNote: mode.note });
  const inspector = new Inspector($("[data-role=inspector]"), {
    fork: (request) => store.dispatch({ type: "fork", request })[0],
    whyNoFork: (run) => whyNoFork(store.state, run),
    download: (name, content) => download(name, content, settings.apiKey),
    prices: () => prices(),
    lesson: () => (store.state.lesson ? store.state.lesson.slug : null),
    model: () => (settings.live ? settings.values.model : ""),
  });
  const other = setupProofPages({
    $,
    byTest,
    lessons: () => store.state.lessons,
    estimate: () => store.state.estimate,
    secret: () => settings.apiKey,
  });
  const hooks = { toast: (...a) => status.toast(...a), openRun: (...a) => inspector.load(...a), other };
  const address = new Address(store, hooks); // the lesson in the address, or a proof page (#map …)
  const run = () => (address.readFirst(), store.dispatch({ type: "run" }));
  const stop = () => store.dispatch({ type: "stop" });
  const help = setupHelp($("[data-role=help]"), $("[data-role=help-dialog]"));
  const stoppable = () => !controls(store.state).stopDisabled;
  const keys = setupShortcuts({ run, stop, stoppable, go: (delta) => address.go(delta), help });
  const setTab = setupTabs(document);
  const clearPanels = () => [output, events, context, files, inspector].forEach((panel) => panel.clear());
  const screen = new LessonScreen(
    { text, title: $("[data-role=title]"), modified: $("[data-role=modified]"), checks, scroller: $("#lesson") },
    {
      renderList,
      clearPanels,
      keys,
      reopen: (slug) => store.dispatch({ type: "open", slug }),
      choose(slug, chosen) {
        // the learner read the code from elsewhere and chose their model for it: a Python with the key
        trustCode(slug);
        toggle.value = chosen;
        mode.change(store.state.everReady);
        chat.modelChanged();
        prepare();
      },
    },
  );
  const approve = setupApproval($("[data-role=approval-dialog]"));
  const forward = forwarder(setTab); // a panel brought forward where the learner looks
  const wired = { store, output, events, context, inspector, mode, approve, status, files, forward };
  const { runCallbacks, launch } = runWiring(wired);
  const tab = (name) => $(`#tab-${name}`).click();
  const chat = new Chat(
    chatElements(byTest),
    chatHooks({ store, mode, inspector, status, output, tab, forward, askLine }),
  );
  // (the first worker was started before the lesson's code was known)
  const ready = (info) => (say.ready(info, python.notIsolated), register(), prepare());
  const runner = () => python.runner;
  const parts = { store, runner, realm, prepare, screen, chat, inspector, checks, say, status, mode, settings };
  store.handle(effects({ ...parts, launch, runCallbacks, clearPanels, setTab, address, text, ready }));
  showControls(store, { run: byTest("run"), stop: byTest("stop") });
  byTest("run").addEventListener("click", run);
  byTest("stop").addEventListener("click", stop);
  const shownRun = () => inspector.shownRun();
  const lessons = () => store.state.lessons;
  setupLessonTools({ $, byTest, screen, address, lessons, status, shownRun, secret: () => settings.apiKey });
  setupTheme($("[data-role=theme]"));
  setupDrawer($("[data-role=menu]"), list);
  announceRuns(byTest("status"), () => checks.failed(), byTest("announcer"));
  mode.show();
  if (settings.mode === "local") mode.useLocal();

  const listed = (build) => {
    catalog.load(build); // where the model catalog is (fetched when Settings first opens)
    address.list((message) => {
      status.show(message, "crashed");
      text.replaceChildren(Object.assign(document.createElement("p"), { role: "alert", textContent: message })); // stays when Python is ready
    });
  };
  const swapped = () => inspector.forget(); // the runs kept for forks went with the worker it replaced
  Object.assign(python, await startPython({ store, status, say, settings, register, listed, swapped }));
}

main();
