// The Chat tab's rules without a DOM: the turns of a conversation and the one in flight, as a
// reducer like session.js — `next(state, event) -> {state, effects}` — which chat.js drives and
// draws. tests/site/test_chat_turns.py runs it in Node.js.
//
// A message is a turn: the learner's words, then the agent's reply. While the chat is being made
// ready (the lesson's code run into the namespace, for the suggestions: a "ready" request with no
// message), a message waits and goes once it is ready; while a turn is in flight, another is not
// taken (Stop ends it). A message the session refuses comes back to the input. New conversation
// empties the log, and the next message starts afresh.

const OFFERS = /\bchat_with\s*\(/; // a lesson offers a chat when its code calls chat_with

/** What is said instead of a reply, by how the turn ended (a turn's `kind`). */
export const NOTES = {
  blocked: "Blocked: the input gate refused this message, so the model was not asked.",
  redacted: "Redacted: the output gate kept (part of) the model's answer from you.",
  stopped: "This turn did not end with an answer.",
  interrupted: "Stopped: the turn ended before the agent answered.",
  left: "Stopped: you opened another lesson before the agent answered.",
  renewed: "Ended: Settings changed the endpoint or key, so Python started again before the agent answered.",
  error: "The agent raised an error.",
};

const AFRESH = {
  role: "note",
  text: "The lesson's code ran again (it or the model changed, or Python started afresh): the agent starts a new conversation here.",
};

/** Whether a lesson's code offers a chat. */
export const offersChat = (codes) => codes.some((source) => OFFERS.test(source));

/** The tool calls of a turn's events: [{tool, arguments, result, ok}] in the order they were made. */
export function toolCalls(events) {
  const calls = new Map();
  for (const event of events) {
    const key = `${event.run}:${event.call_id}`;
    if (event.type === "tool_call")
      calls.set(key, { tool: event.tool, arguments: event.arguments, result: null, ok: null });
    if (event.type === "tool_result") {
      const call = calls.get(key) || { tool: event.tool, arguments: null };
      calls.set(key, { ...call, result: event.result ?? "", ok: event.ok });
    }
  }
  return [...calls.values()];
}

/** A turn that ended before the agent answered (Stop; `why`: "left", another lesson was opened;
 * "renewed", Settings started Python again): what it called and printed until then. */
function cutShort({ events, printed }, why) {
  return {
    role: "assistant",
    text: "",
    kind: "interrupted",
    stopped: null,
    run: null,
    tools: toolCalls(events),
    printed: printed.trim(),
    blocks: [],
    ...(why ? { why } : {}),
  };
}

/** No lesson yet: no turns, nothing in flight. */
export function initial() {
  return { slug: null, turns: [], offer: null, pending: null, queued: null, fresh: false, sent: 0 };
}

/**
 * One event, the state after it and what the page does about it (effects, in order):
 *   send {id, message, fresh}   ask the session for a turn (message null: make the chat ready)
 *   later {event}               dispatch `event` in a task of its own: once the session has heard
 *                               the turn that just ended
 *   asked {id, turn}            the learner's turn, and the agent's being written (request id), drawn
 *   input {text}                the input field set to this text
 *   save                        the turns kept on this device
 *   keep {slug, turns}          another lesson's turns kept on this device (the one left)
 *   draw                        the log drawn again from the turns
 *   note {text}                 a passing note in the log (not kept)
 *   focus                       the input field focused
 *   replied {reply}             a turn ended: its reply (null: not on screen)
 *
 * Events: {type: "show", slug, turns, heard} a lesson's kept conversation (another lesson: a turn
 * in flight in the one left is stopped by the session, and kept cut short with what it `heard`); {type:
 * "opened", scripted} the tab was opened; {type: "submit", text}; {type: "refused", id, error} the
 * session refused the request `id`; {type: "ended", result, here, heard: {events, printed}} the
 * turn in flight ended (session.js `chatted`; outcome "refused": the runner could not take it); {type: "queued", text, slug} the message that waited
 * for the chat of lesson `slug` to be made ready; {type: "restart"} New conversation.
 */
export function next(state, event) {
  const handle = EVENTS[event.type];
  if (!handle) throw new Error(`chat: no event ${event.type}`);
  return handle(state, event);
}

const same = (state) => ({ state, effects: [] });

function request(state, message, effects = []) {
  const id = state.sent + 1;
  const pending = { id, message, fresh: state.fresh };
  if (message === null)
    return {
      state: { ...state, pending, sent: id },
      effects: [...effects, { type: "send", id, message, fresh: state.fresh }],
    };
  const turns = [...state.turns, { role: "user", text: message }];
  return {
    state: { ...state, turns, pending, sent: id },
    effects: [
      ...effects,
      { type: "save" },
      { type: "asked", id, turn: turns[turns.length - 1] },
      { type: "send", id, message, fresh: state.fresh },
    ],
  };
}

const EVENTS = {
  show(state, { slug, turns, heard = { events: [], printed: "" } }) {
    if (slug === state.slug) return same(state);
    const effects = [{ type: "draw" }];
    if (state.pending && state.pending.message !== null && state.slug)
      // leaving stops its turn
      effects.unshift({ type: "keep", slug: state.slug, turns: [...state.turns, cutShort(heard, "left")] });
    return { state: { ...initial(), sent: state.sent, slug, turns: [...turns] }, effects };
  },

  opened(state, { scripted }) {
    if (state.offer || state.pending || !scripted) return same(state);
    return request(state, null);
  },

  submit(state, { text }) {
    const message = (text || "").trim();
    if (!message || (state.pending && state.pending.message !== null)) return same(state);
    const cleared = [{ type: "input", text: "" }];
    if (state.pending) return { state: { ...state, queued: message }, effects: cleared }; // it goes once the chat is ready
    return request(state, message, cleared);
  },

  refused(state, { id, error }) {
    const pending = state.pending;
    if (!pending || pending.id !== id) return same(state);
    const note = { type: "note", text: error || "The message could not be sent." };
    if (pending.message === null) return { state: { ...state, pending: null }, effects: [{ type: "draw" }, note] };
    const turns = state.turns.slice(0, -1);
    return {
      state: { ...state, pending: null, turns },
      effects: [{ type: "save" }, { type: "input", text: pending.message }, { type: "draw" }, note],
    };
  },

  ended(state, { result, here, heard = { events: [], printed: "" } }) {
    const pending = state.pending;
    const after = { ...state, pending: null };
    if (!pending || !here) return { state: after, effects: [{ type: "replied", reply: null }] };
    const turn = result.chat;
    if (turn && turn.offer) after.offer = turn.offer;
    if (turn && pending.fresh) after.fresh = false; // the fresh namespace was made
    if (pending.message === null) return ready(after, turn, result);
    if (result.outcome === "refused") {
      // the runner could not take it: nothing ran, the message comes back to the input
      const note = { type: "note", text: `${result.error}, then send it again.` };
      const reply = { role: "note", text: result.error };
      return {
        state: { ...after, turns: after.turns.slice(0, -1) },
        effects: [
          { type: "save" },
          { type: "input", text: pending.message },
          { type: "draw" },
          note,
          { type: "replied", reply },
        ],
      };
    }
    const turns = [...after.turns];
    const earlier = turns.slice(0, -1).some((t) => t.role === "assistant");
    if (turn && turn.fresh && earlier) turns.splice(turns.length - 1, 0, AFRESH);
    const reply = replyOf(result, turn, heard);
    turns.push(reply);
    return { state: { ...after, turns }, effects: [{ type: "save" }, { type: "draw" }, { type: "replied", reply }] };
  },

  queued(state, { text, slug }) {
    if (slug !== state.slug) return same(state); // another lesson is on screen now
    if (state.pending) return { state: { ...state, queued: text }, effects: [] }; // (another got in first: it waits again)
    return request(state, text);
  },

  restart(state) {
    if (state.pending && state.pending.message !== null) return same(state); // a turn in flight: Stop it first
    return {
      state: { ...state, turns: [], fresh: true },
      effects: [{ type: "save" }, { type: "draw" }, { type: "focus" }],
    };
  },
};

/** The chat was made ready (or could not be): a note when the code ran afresh after a reply, and
 * the message that waited goes now. */
function ready(state, turn, result) {
  let turns = state.turns;
  const effects = [];
  if (turn && turn.fresh && turns.some((t) => t.role === "assistant") && turns[turns.length - 1].role !== "note") {
    turns = [...turns, AFRESH];
    effects.push({ type: "save" });
  }
  effects.push({ type: "draw" });
  if (result.error) effects.push({ type: "note", text: result.error });
  const reply = result.error
    ? { role: "note", text: result.error }
    : { role: "ready", text: state.offer ? state.offer.name : "the agent" };
  effects.push({ type: "replied", reply });
  if (state.queued) effects.push({ type: "later", event: { type: "queued", text: state.queued, slug: state.slug } });
  return { state: { ...state, turns, queued: null }, effects };
}

/** The agent's turn, from how the run ended and what it sent on the way. */
function replyOf(result, turn, { events, printed }) {
  if (result.outcome === "checked" && turn && turn.kind !== "ready")
    return {
      role: "assistant",
      text: turn.reply,
      kind: turn.kind,
      stopped: turn.stopped,
      run: turn.run,
      tools: toolCalls(events),
      printed: printed.trim(),
      blocks: events.filter((e) => e.type === "policy_block").map((e) => e.reason),
    };
  if (result.outcome === "checked" || result.outcome === "crashed")
    return { role: "note", text: result.error || result.message || "The chat could not start." };
  return cutShort({ events, printed }, result.renewed ? "renewed" : null);
}
