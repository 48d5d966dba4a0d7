// What the session's effects do on the page: session.js decides (the lesson on screen, one run at a
// time) and returns effects; each is carried out here on the parts main.js built and hands in, and
// Run and Stop show what the session allows. No rule lives here, only which part does what.

import { carriedCells } from "./carried.js";
import { controls } from "./session.js";
import { fetchLesson } from "../lesson/address.js";

/**
 * The handlers for store.handle, one an effect.
 * @param {object} p  {store, runner: () => the Runner (made once the page knows it is isolated),
 *   realm () (the Python the lesson's code may run in: foreign.js), prepare () (start that Python now),
 *   screen, chat, inspector, checks, say (report.js), status, mode, settings, launch and
 *   runCallbacks (runwiring.js), clearPanels(), setTab(name), address (lesson/address.js), text (the
 *   lesson's element), ready() (Python is ready: after the ready line)}
 */
export function effects(p) {
  const { store, status, mode, settings } = p;
  const env = () => settings.env(mode.current());
  return {
    empty: () => p.text.replaceChildren(Object.assign(document.createElement("p"), { textContent: "No lessons yet." })),
    load: ({ ticket, meta }) =>
      p.address.lessonOf(meta).then((lesson) => void store.dispatch({ type: "shown", ticket, meta, lesson })),
    draw: (effect) => (p.screen.draw(effect), p.chat.show(effect.meta.slug, p.screen.now.view.cells()), p.prepare()),
    follow: p.say.follow,
    toast({ say: what, meta }) {
      if (what === "loading")
        status.toast("Python is still loading; Run works as soon as the status line says Ready.", 3000);
      else status.toast(`${meta.title} runs as soon as Python is ready again.`, 3000);
    },
    start({ ticket, meta }) {
      if (!mode.canRun(ticket)) return;
      p.clearPanels();
      p.checks.running();
      const at = performance.now();
      status.stamp({ runStarted: at, runEnded: undefined, extrasMs: undefined });
      status.show(`Running ${meta.title} with the ${mode.name()} model…`, "running", { about: ticket });
      if (document.body.dataset.tab !== "output" && matchMedia("(max-width: 760px)").matches) p.setTab("output");
      const cells = p.screen.now.view.cells();
      // the runner takes the run now (a Stop or a new endpoint ends it from here on); Python gets it
      // once the lessons it reuses are here
      const carried = carriedCells(cells, store.state.lessons, fetchLesson).catch(() => ({})); // a lesson that cannot be fetched: mine() reads the site's file, or says it cannot
      p.launch("run", p.runner().run(cells, { carried, env: env(), on: p.runCallbacks(ticket), realm: p.realm() }), at);
    },
    stop({ say: saying, ticket }) {
      if (saying) status.show("Stopping…", "stopping", { about: ticket });
      p.runner().stop();
    },
    ended: (effect) => p.say.ended(effect, store.state.shown),
    fork({ request, ticket }) {
      status.show(`Forking run #${request.run} from step ${request.step}…`, "running", { about: ticket });
      const on = p.runCallbacks(ticket, { source: "fork" });
      return p.launch("fork", p.runner().fork(request, { env: env(), on, realm: p.realm() }), performance.now());
    },
    chat({ request, ticket }) {
      if (!mode.canRun(ticket))
        return Promise.resolve({ ok: false, error: "The model is not ready: see the message above, then send again." });
      status.show(`Sending your message to the lesson's agent (${mode.name()} model)…`, "running", { about: ticket });
      const cells = p.screen.now.view.cells();
      const on = p.chat.callbacks(p.runCallbacks(ticket));
      return p.launch(
        "chat",
        p.runner().chat(cells, { ...request, env: env(), on, realm: p.realm() }),
        performance.now(),
      );
    },
    chatted: (effect) => p.chat.ended(effect),
    refused: ({ error }) => Promise.resolve({ ok: false, error }),
    forked: p.say.forked,
    forget: () => p.inspector.forget(),
    ready: ({ info }) => p.ready(info),
    crashed: p.say.crashed,
  };
}

/** Run and Stop as the session allows: aria-disabled, not disabled, so a focused button that stops
 * working keeps the focus (Run and Stop ignore a press that cannot work; Run then says that Python
 * is still loading). */
export function showControls(store, { run, stop }) {
  store.subscribe((state) => {
    const { runDisabled, stopDisabled, running } = controls(state);
    run.setAttribute("aria-disabled", String(runDisabled));
    stop.setAttribute("aria-disabled", String(stopDisabled));
    document.body.dataset.running = String(running);
  });
}
