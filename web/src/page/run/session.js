// The page's rules, without a DOM: which lesson is on screen and what a Run or Stop pressed now
// does. `next(state, event)` returns the next state and the effects the page must carry out
// (main.js draws them); nothing here touches the page, so the rules are tested in Node.js
// (tests/site/test_session.py).
//
// One run, one lesson: a run belongs to the lesson it was started for (the ticket of the open
// that put that lesson on screen). Its output and results are drawn only while that lesson is
// on screen. A Run pressed while a lesson is on its way, while the last lesson's run is still
// stopping, or while Python starts again, waits and then runs the lesson being opened; opening
// yet another lesson cancels it. The runner (runner.js) says when a run starts and ends; this
// state only remembers which lesson it belongs to.

/**
 * @typedef {{slug: string, title: string, hash?: string}} Meta  a lesson's entry in lessons/index.json
 * @typedef {{kind: "run" | "fork" | "chat", ticket: number, meta: Meta, at: number}} Run  the run in flight
 *   (a chat turn, the Chat tab's message to the lesson's agent, is a run too: one at a time, Stop ends it)
 * @typedef {object} State
 * @property {Meta[]} lessons     lessons/index.json
 * @property {object | null} estimate  lessons/index.json's `estimate`: the rule and the core path's and
 *                                the course's minutes (looplab/_course/estimate.py, corepath.py)
 * @property {number} showing     the latest open: its lesson is on screen, or on its way
 * @property {number} shown       the open whose lesson is on screen (0: none yet)
 * @property {Meta | null} lesson the lesson on screen
 * @property {"starting" | "ready" | "failed"} python  "failed": it could not load; no new worker comes
 * @property {boolean} everReady  Python has been ready once (a Run pressed before that is refused)
 * @property {Run | null} run     the run (or fork) in flight
 * @property {number} wanted      the open a pressed Run waits for (0: none)
 * @typedef {{type: string, [key: string]: any}} Event
 * @typedef {{type: string, [key: string]: any}} Effect
 */

/** @returns {State} */
export function initial() {
  return {
    lessons: [],
    estimate: null,
    showing: 0,
    shown: 0,
    lesson: null,
    python: "starting",
    everReady: false,
    run: null,
    wanted: 0,
  };
}

/** The run in flight belongs to the lesson on screen, and no other lesson is on its way. */
export function runningHere(state) {
  return Boolean(state.run && state.run.ticket === state.shown && state.shown === state.showing);
}

/** What the buttons show: Run and Stop's aria-disabled, and whether any run is in flight. */
export function controls(state) {
  const here = runningHere(state);
  return {
    runDisabled: state.python !== "ready" || !state.lesson || here,
    stopDisabled: !(here || state.wanted),
    running: Boolean(state.run),
  };
}

/** Why a fork cannot start now (null: it can). */
export function busy(state) {
  return state.python !== "ready" || state.run ? "Python is busy: wait for the run to end" : null;
}

/** Why the inspector's run cannot be forked now (null: it can). `run` is a RunBook run (runs.js). */
export function whyNoFork(state, run) {
  if (run.source === "imported")
    return "An imported run cannot be forked here: its model and tools are not in this page.";
  if (run.source === "gone") return "Python was restarted since this run: run the lesson again to fork it.";
  if (!run.stop) return "The run has not ended yet.";
  const why = busy(state);
  return why ? `${why}.` : null;
}

/**
 * @param {State} state
 * @param {Event} event
 * @returns {{state: State, effects: Effect[]}}
 */
export function next(state, event) {
  const handle = EVENTS[event.type];
  if (!handle) throw new Error(`session: no event "${event.type}"`);
  const effects = [];
  const after = handle({ ...state }, event, effects);
  return { state: after, effects };
}

// A Run waits for the lesson being opened and for Python: it starts when both are there.
function startWanted(state, effects) {
  if (state.wanted && state.wanted !== state.showing) state.wanted = 0; // another lesson was opened since
  if (state.wanted && state.shown === state.showing && !state.run && state.python === "ready") {
    state.wanted = 0;
    effects.push({ type: "start", ticket: state.shown, meta: state.lesson });
  }
  return state;
}

const ENDED = { run: "ended", fork: "forked", chat: "chatted" }; // the effect a run's end is, by its kind

const EVENTS = {
  /** lessons/index.json arrived. */
  listed(state, { lessons, estimate = null }) {
    state.lessons = lessons;
    state.estimate = estimate;
    return state;
  },

  /** A lesson is asked for (the address changed): it is fetched; leaving a lesson stops its run. */
  open(state, { slug }, effects) {
    const meta = state.lessons.find((l) => l.slug === slug) || state.lessons[0];
    if (!meta) {
      effects.push({ type: "empty" });
      return state;
    }
    state.showing += 1;
    if (state.run) effects.push({ type: "stop", say: false });
    effects.push({ type: "load", ticket: state.showing, meta });
    return state;
  },

  /** An open's lesson arrived: drawn unless a later open was asked for meanwhile. */
  shown(state, { ticket, meta, lesson }, effects) {
    if (ticket !== state.showing) return state;
    state.shown = ticket;
    state.lesson = meta;
    effects.push({ type: "draw", ticket, meta, lesson });
    // The status line never goes on describing a lesson that has left the screen.
    effects.push({ type: "follow", ticket, meta, run: state.run, python: state.python });
    return startWanted(state, effects);
  },

  /** Run pressed (the button, Ctrl/Cmd+Enter): the lesson on screen, or the one on its way. */
  run(state, _event, effects) {
    if (!state.lesson) return state;
    if (state.python !== "ready" && !state.everReady) {
      effects.push({ type: "toast", say: "loading" });
      return state;
    }
    if (runningHere(state)) return state;
    state.wanted = state.showing;
    startWanted(state, effects);
    if (state.wanted && state.shown === state.showing && !state.run)
      effects.push({ type: "toast", say: "waiting", meta: state.lesson });
    return state;
  },

  /** Stop pressed (the button, Esc, Ctrl+.): the run of the lesson on screen, or a Run waiting. */
  stop(state, _event, effects) {
    state.wanted = 0;
    if (runningHere(state)) effects.push({ type: "stop", say: true, ticket: state.shown });
    return state;
  },

  /** The runner took a run (or a fork) for the lesson on screen. */
  started(state, { kind, at }) {
    state.run = { kind, ticket: state.shown, meta: state.lesson, at };
    return state;
  },

  /** The runner's run ended: reported where its lesson is on screen, else said in a line. */
  ended(state, { result, at }, effects) {
    const run = state.run;
    if (!run) return state;
    state.run = null;
    const here = run.ticket === state.shown;
    effects.push({ type: ENDED[run.kind], run, result, here, seconds: (at - run.at) / 1000, lesson: state.lesson });
    return startWanted(state, effects);
  },

  /** A worker is starting: the first, or a new one after a Stop that terminated or a crash. */
  starting(state, { restart }, effects) {
    state.python = "starting";
    if (restart) effects.push({ type: "forget" }); // the runs kept for forks went with the old worker
    return state;
  },

  /** Python is loaded: a Run pressed while it started again runs now. */
  ready(state, { info }, effects) {
    state.python = "ready";
    state.everReady = true;
    effects.push({ type: "ready", info, lesson: state.lesson });
    return startWanted(state, effects);
  },

  /** The worker failed: a new one comes when Python had loaded (`restart`); else none does. */
  crashed(state, { message, restart }, effects) {
    state.python = restart ? "starting" : "failed";
    if (!restart) state.wanted = 0;
    effects.push({ type: "crashed", message, restart });
    return state;
  },

  /** Fork pressed in the inspector: the worker re-runs a kept run from a step. */
  fork(state, { request }, effects) {
    const why = busy(state);
    effects.push(
      why ? { type: "refused", error: `${why}, then fork.` } : { type: "fork", request, ticket: state.shown },
    );
    return state;
  },

  /** A message sent in the Chat tab: a turn for the lesson on screen, when Python is free. */
  chat(state, { request }, effects) {
    const why =
      !state.lesson || state.shown !== state.showing
        ? "The lesson is still opening"
        : state.python !== "ready"
          ? "Python is not ready yet: wait for the status line to say Ready"
          : busy(state);
    effects.push(
      why ? { type: "refused", error: `${why}, then send it again.` } : { type: "chat", request, ticket: state.shown },
    );
    return state;
  },
};

/** A store: the state, changed only by dispatch; subscribers hear each change, `effects` carry them
 * out. dispatch returns what the effect handlers returned, in order. */
export function createStore(state = initial()) {
  const subscribers = [];
  let handlers = {};
  return {
    get state() {
      return state;
    },
    handle(table) {
      handlers = table;
    },
    subscribe(fn) {
      subscribers.push(fn);
    },
    dispatch(event) {
      const before = state;
      const step = next(state, event);
      state = step.state;
      const changed = Object.keys(state).some((key) => state[key] !== before[key]);
      if (changed) for (const fn of subscribers) fn(state);
      return step.effects.map((effect) => {
        const handler = handlers[effect.type];
        if (!handler) throw new Error(`session: no handler for the effect "${effect.type}"`);
        return handler(effect);
      });
    },
  };
}
