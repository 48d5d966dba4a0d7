// The Chat tab: a conversation with the agent a lesson offers (looplab/_course/chat.py's chat_with). Each
// message is a chat turn (session.js: a run of kind "chat", one at a time, Stop ends it) that the
// worker sends to the entry point in the lesson's namespace, kept between messages
// (looplab/_course/conversation.py); the lesson's code runs first when it changed. The reply shows its
// tool calls folded (name, arguments, result), what the agent printed, a blocked input or a
// redacted output; an approval asks inline. The conversation is kept with the lesson's edits on
// this device (storage.js; not in share links or notebooks). No rule lives here: the turns' rules
// are turns.js's (a reducer, like session.js), and main.js hands the session's dispatch and the
// panels' callbacks in; this file draws and carries out what turns.js decides.

import { el } from "../ui/dom.js";
import { pretty, short, plural } from "../ui/text.js";
import { loadChat, saveChat } from "../ui/storage.js";
import { NOTES, initial, next, offersChat } from "./turns.js";

/** The Chat tab's elements in index.html. */
export function chatElements(byTest) {
  return {
    tab: byTest("chat-tab"),
    log: byTest("chat-log"),
    input: byTest("chat-input"),
    send: byTest("chat-send"),
    fresh: byTest("chat-new"),
    suggestions: document.querySelector("[data-role=chat-suggestions]"),
    who: document.querySelector("[data-role=chat-who]"),
  };
}

/** The hooks a Chat needs, from the page's parts: the session's store, the model toggle, the
 * inspector, the status line, the Output panel, `tab(name)`, which opens a panel tab, and
 * `forward(name)`, which brings one forward where the learner looks (on a phone too), and
 * `askLine`, the Output panel's way to ask for a line (panels/stdin.js), to ask inside a turn. */
export function chatHooks({ store, mode, inspector, status, output, tab, forward, askLine }) {
  return {
    askLine,
    said: (sentence, ticket) => status.show(...sentence, { about: ticket }),
    status,
    forward: () => forward("chat"),
    written: (text) => output.write(text, "stdin"),
    send: (request) => store.dispatch({ type: "chat", request })[0],
    scripted: () => mode.current() === "scripted",
    model: () => mode.inUse(),
    leave: () => tab("output"),
    known: (run) => inspector.book.byId.has(String(run)),
    inspect: (run) => (tab("trace"), inspector.open(String(run))),
  };
}

/** The status line's sentence and state when a turn ended (announce.js reads it out once). */
export function chatSentence(reply, { result, seconds }) {
  const time = `${seconds.toFixed(1)} s`;
  if (reply && reply.role === "ready") return [`Ready to talk to ${reply.text}.`, "ready"];
  if (!reply || reply.role === "note")
    return [`The chat could not go on: ${short(result.error || result.message || "no reply", 200)}`, "failed"];
  if (reply.kind === "interrupted" && result.renewed)
    return [
      `The turn ended after ${time}: Settings changed the endpoint or key, so Python started again. Send it again.`,
      "stopped",
    ];
  if (reply.kind === "interrupted") return [`Stopped the turn after ${time}. Say something else to go on.`, "stopped"];
  return [
    `The agent replied in ${time} (stopped: ${reply.stopped}): ${short(reply.text || "(no reply)", 160)}`,
    "replied",
  ];
}

export class Chat {
  /**
   * @param {object} ui     {tab, panel, log, input, send, fresh, suggestions, who}
   * @param {object} hooks  chatHooks(): send(request) -> Promise (resolves, for a refused message,
   *                        with {ok: false, error} and no `outcome`); scripted(); leave() (the tab
   *                        goes: the Output tab opens); known(run) and inspect(run) (the inspector
   *                        has that run; show it); said([sentence, state], ticket) (the status line)
   */
  constructor(ui, hooks) {
    this.ui = ui;
    this.hooks = hooks;
    this.state = initial(); // turns.js: the turns, the offer, the request in flight
    this.writing = null; // the turn in flight as drawn and heard: {id, li, events, printed, text}
    ui.send.addEventListener("click", () => this.submit());
    ui.fresh.addEventListener("click", () => this.dispatch({ type: "restart" }));
    ui.tab.addEventListener("click", () => this.opened());
    ui.input.addEventListener("keydown", (event) => this.key(event));
  }

  get turns() {
    return this.state.turns;
  }

  get offer() {
    return this.state.offer;
  }

  /** An event to turns.js, and its effects carried out (returned too). */
  dispatch(event) {
    const step = next(this.state, event);
    this.state = step.state;
    for (const effect of step.effects) this.effect(effect);
    return step.effects;
  }

  effect(effect) {
    if (effect.type === "save") this.save();
    else if (effect.type === "keep") saveChat(effect.slug, effect.turns);
    else if (effect.type === "draw") this.draw();
    else if (effect.type === "note") this.note(effect.text);
    else if (effect.type === "input") this.ui.input.value = effect.text;
    else if (effect.type === "focus") this.ui.input.focus();
    else if (effect.type === "asked") this.asked(effect.id, effect.turn);
    else if (effect.type === "send") this.send(effect);
    else if (effect.type === "later") setTimeout(() => this.dispatch(effect.event), 0);
  }

  /** A lesson is on screen (its cells): the tab shows when its code offers a chat; its kept conversation is drawn. */
  show(slug, cells) {
    const offered = offersChat(cells.filter((c) => c.kind === "code").map((c) => c.source));
    this.ui.tab.hidden = !offered;
    if (!offered && this.ui.tab.getAttribute("aria-selected") === "true") this.hooks.leave();
    if (slug !== this.state.slug) {
      const heard = this.heard();
      this.writing = null;
      this.dispatch({ type: "show", slug, turns: loadChat(slug), heard }); // (leaving stops its turn)
    }
  }

  /** What the turn in flight called and printed so far. */
  heard() {
    const writing = this.writing;
    return writing && writing.events ? { events: writing.events, printed: writing.printed } : undefined;
  }

  /** The tab was opened: with the scripted model, the chat is made ready, for its suggestions. */
  opened() {
    this.dispatch({ type: "opened", scripted: this.hooks.scripted() });
    this.ui.input.focus();
  }

  key(event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.submit();
    } else if (event.key === "ArrowUp" && !this.ui.input.value) {
      const last = [...this.turns].reverse().find((t) => t.role === "user");
      if (last) {
        event.preventDefault();
        this.ui.input.value = last.text;
      }
    }
  }

  submit(text = this.ui.input.value) {
    this.dispatch({ type: "submit", text });
  }

  /** Ask the session for a turn (message null: only make the chat ready); a refused one comes back. */
  send({ id, message, fresh }) {
    const writing = {
      id,
      li: this.writing && this.writing.id === id ? this.writing.li : null,
      events: [],
      printed: "",
      text: "",
    };
    this.writing = writing;
    Promise.resolve(this.hooks.send({ message, fresh })).then((answer) => {
      if (answer && !("outcome" in answer)) this.dispatch({ type: "refused", id, error: answer.error }); // nothing ran
    });
  }

  /** The learner's turn drawn, and the agent's being written (request `id`). */
  asked(id, turn) {
    this.ui.log.querySelector("[data-role=chat-empty]")?.remove();
    this.ui.log.append(this.drawTurn(turn));
    const li = el(
      "li",
      { class: "chat-turn", "data-testid": "chat-turn", "data-role": "assistant", "data-state": "pending" },
      el("span", { class: "chat-who" }, this.offer ? this.offer.name : "agent"),
      el("div", { class: "chat-text" }, "…"),
    );
    this.ui.log.append(li);
    this.scroll();
    this.writing = { id, li }; // send() takes it over
  }

  /** The callbacks of a turn: the panels' (`base`, main.js's runCallbacks) and this turn's own. */
  callbacks(base) {
    const writing = this.writing;
    const mine = () =>
      writing && this.writing === writing && this.state.pending && this.state.pending.id === writing.id;
    return {
      ...base,
      stdout: (text) => {
        base.stdout(text);
        if (mine()) writing.printed += text;
      },
      event: (event) => {
        base.event(event);
        if (mine()) writing.events.push(event);
      },
      delta: (text) => {
        // a reply's text as it is written (shared/protocol.js delta)
        if (!mine() || !writing.li) return;
        writing.text += text;
        writing.li.querySelector(".chat-text").textContent = writing.text;
        this.scroll();
      },
      ask: (kind, request, options) =>
        kind === "approval" && mine() && writing.li
          ? this.approval(writing.li, request, options)
          : kind === "stdin" && mine() && writing.li
            ? this.stdin(writing, request, options)
            : base.ask(kind, request, options),
    };
  }

  /** input() in a turn (the agent's code, or the lesson's code run first): asked in the turn being
   * written, where the learner looks; the answered line is kept with what the turn printed. */
  stdin(writing, request, options) {
    const where = {
      show: (line) => {
        this.hooks.forward();
        writing.li.append(el("p", { class: "chat-ask" }, line));
        this.scroll();
      },
      answered: (text) => {
        this.hooks.written(text);
        writing.printed += text;
        writing.li.querySelector(".chat-ask:empty")?.remove();
      },
    };
    return this.hooks.askLine(where, request, options, this.hooks.status);
  }

  /** An approval asked inline, in the turn being written: Approve or Reject (the ask channel's answer). */
  approval(li, { tool, arguments: args }, { blocking, signal }) {
    const approve = el("button", { type: "button", "data-testid": "chat-approve" }, "Approve");
    const reject = el("button", { type: "button", class: "ghost", "data-testid": "chat-reject" }, "Reject");
    const box = el(
      "div",
      { class: "chat-approval", role: "group", "aria-label": `Approve ${tool}?` },
      el("p", {}, `The agent asks to run ${tool} with:`),
      el("pre", {}, pretty(args)),
      blocking
        ? el("p", { class: "chat-actions" }, approve, reject)
        : el(
            "p",
            { class: "muted" },
            "This page is not cross-origin isolated, so the turn could not pause to ask you: the call was refused by default.",
          ),
    );
    li.append(box);
    this.scroll();
    if (!blocking) return { approved: false, reason: "" };
    reject.focus(); // the safe choice first
    return new Promise((resolve) => {
      const done = (approved) => {
        box.replaceChildren(el("p", { class: "muted" }, `${approved ? "Approved" : "Rejected"}: ${tool}`));
        this.ui.input.focus();
        resolve({ approved, reason: "" });
      };
      approve.addEventListener("click", () => done(true));
      reject.addEventListener("click", () => done(false));
      signal.addEventListener("abort", () => box.replaceChildren(el("p", { class: "muted" }, `Not answered: ${tool}`)));
    });
  }

  /** A chat turn ended (session.js's `chatted`): the reply, or why there is none; the status line
   * says so (and announce.js reads that out once). */
  ended(effect) {
    const heard = this.heard();
    this.writing = null;
    const effects = this.dispatch({ type: "ended", result: effect.result, here: effect.here, heard });
    const { reply } = effects.find((e) => e.type === "replied");
    if (effect.result.outcome === "crashed") return; // said when it crashed
    if (effect.here) this.hooks.said(chatSentence(reply, effect), effect.run.ticket);
    else if (effect.lesson) {
      // the learner opened another lesson, which stopped the turn: the status line says it ended
      const how = effect.result.outcome === "checked" ? "had finished" : "stopped";
      this.hooks.said([
        `The chat turn in ${effect.run.meta.title} ${how}: you opened ${effect.lesson.title}.`,
        "stopped",
      ]);
    }
  }

  note(text) {
    this.ui.log.append(el("li", { class: "chat-note", role: "status" }, text));
    this.scroll();
  }

  save() {
    if (this.state.slug) saveChat(this.state.slug, this.turns);
  }

  // In the next frame, which lays the page out anyway: reading scrollHeight now would force a layout
  // of the whole page in this task (the lesson's first draw calls draw() too).
  scroll() {
    requestAnimationFrame(() => (this.ui.log.scrollTop = this.ui.log.scrollHeight));
  }

  /** The header: who the learner talks to, and the model it uses now (drawn again when the toggle
   * or Settings change it). */
  header() {
    const who = this.offer ? this.offer.name : "the lesson's agent";
    this.ui.who.textContent = `Talking to ${who} · ${this.hooks.model()}`;
  }

  /** The model toggle or Settings changed: the header and the suggestions (the scripted brain's)
   * follow; the log, and a turn being written, stay. */
  modelChanged() {
    this.header();
    this.chips();
  }

  draw() {
    this.header();
    this.ui.log.replaceChildren(...this.turns.map((turn) => this.drawTurn(turn)));
    if (!this.turns.length)
      this.ui.log.append(
        el(
          "li",
          { class: "chat-note muted", "data-role": "chat-empty" },
          "Send a message: it goes to the agent this lesson built, which keeps what it learns between messages.",
        ),
      );
    this.chips();
    this.scroll();
  }

  chips() {
    const chips = this.offer && this.hooks.scripted() ? this.offer.suggestions : [];
    this.ui.suggestions.replaceChildren(
      ...chips.map((text) => {
        const chip = el("button", { type: "button", class: "chat-chip", "data-testid": "chat-suggestion" }, text);
        chip.addEventListener("click", () => this.submit(text));
        return chip;
      }),
    );
    this.ui.suggestions.hidden = !chips.length;
  }

  drawTurn(turn) {
    if (turn.role === "note") return el("li", { class: "chat-note" }, turn.text);
    const you = turn.role === "user";
    const li = el(
      "li",
      {
        class: "chat-turn",
        "data-testid": "chat-turn",
        "data-role": turn.role,
        "data-kind": turn.kind,
        "data-stopped": turn.stopped,
      },
      el("span", { class: "chat-who" }, you ? "You" : this.offer ? this.offer.name : "agent"),
    );
    if (!you && turn.tools && turn.tools.length) {
      li.append(
        el(
          "details",
          { class: "chat-tools" },
          el("summary", {}, plural(turn.tools.length, "tool call")),
          el(
            "ol",
            {},
            ...turn.tools.map((c) =>
              el(
                "li",
                { class: c.ok === false ? "ev-bad" : "" },
                el(
                  "code",
                  {},
                  `${c.tool}(${short(typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? ""), 200)})`,
                ),
                ` → ${c.result === null ? "(no result)" : short(String(c.result), 300)}`,
              ),
            ),
          ),
        ),
      );
    }
    if (!you && turn.printed)
      li.append(
        el(
          "details",
          { class: "chat-printed" },
          el("summary", {}, "What the agent printed"),
          el("pre", {}, turn.printed),
        ),
      );
    const flag = NOTES[turn.why] || NOTES[turn.kind];
    if (!you && flag) li.append(el("p", { class: "chat-flag ev-bad" }, flag));
    for (const reason of (!you && turn.blocks) || []) li.append(el("p", { class: "muted" }, `Gate: ${reason}`));
    li.append(el("div", { class: "chat-text" }, turn.text || (you ? "" : "(no reply)")));
    if (!you && turn.stopped) {
      const meta = el("p", { class: "chat-meta muted" }, `stopped: ${turn.stopped}`);
      if (turn.run && this.hooks.known(turn.run)) {
        const link = el(
          "button",
          { type: "button", class: "link", "data-role": "chat-run" },
          `run #${turn.run} in the inspector`,
        );
        link.addEventListener("click", () => this.hooks.inspect(turn.run));
        meta.append(" · ", link);
      }
      li.append(meta);
    }
    return li;
  }
}
