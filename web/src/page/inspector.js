// The run inspector: a run as a timeline of steps, stepped with ◀ / ▶ / play, the ←/→ keys and a
// scrubber. Each step shows what the model was sent (every message with its size, tokens per role,
// what the memory window left out), its reply (text, thought, tool calls), each tool's result and
// time, the step's tokens and, when the model reported usage, the cost at the learner's prices.
// A step can be forked: its reply or one tool result edited and the run re-run from there (the
// worker replays the steps before it, bridge.py); the fork is shown beside the original with the
// first step that differs. Runs can be exported (JSON, or OpenTelemetry spans) and imported.
//
// The runs come from runs.js; everything the page needs (fork, prices, the lesson, the key to
// hide) arrives as hooks, so this module knows nothing of main.js.

import { el } from "./dom.js";
import { RunBook, costOf, exportRun, outcome, readRunFile, tokensByRole, usageOf } from "./runs.js";
import { toOtlp } from "./otel.js";

const PLAY_MS = 700;

function short(text, limit = 160) {
  text = String(text ?? "");
  return text.length <= limit ? text : text.slice(0, limit - 1) + "…";
}

function pretty(value) {
  if (typeof value !== "string") return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** How long drawing took, as a performance measure (bench/inspector.py reads them; the newest 200 kept). */
function measure(name, started) {
  if (performance.getEntriesByName(name).length >= 200) performance.clearMeasures(name);
  performance.measure(name, { start: started, end: performance.now() });
}

export class Inspector {
  /**
   * @param {HTMLElement} root
   * @param {object} hooks  fork(request) -> Promise<{ok, error, fork}> (runs a fork; its events come
   *                        through add(event, {source: "fork"})); whyNoFork(run) -> reason or null;
   *                        prices() -> {input, output} per million tokens; lesson() -> slug;
   *                        secret() -> the key to keep out of downloads; download(name, text);
   *                        say(text) (a short notice)
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.book = new RunBook();
    this.imports = 0;
    this.build();
    this.clear();
  }

  // --- the frame, made once ------------------------------------------------------------------

  build() {
    const button = (attrs, text) => el("button", { type: "button", ...attrs }, text);
    this.runList = el("ol", { class: "insp-runs", "data-testid": "trace-runs", "aria-label": "Runs" });
    this.fileInput = el("input", { type: "file", accept: "application/json,.json", hidden: "" });
    this.exportButton = button({ "data-testid": "export-run", class: "ghost", title: "Download this run as JSON (Import opens it again)" }, "Export run");
    this.otelButton = button({ "data-testid": "export-otel", class: "ghost", title: "Download this run as OpenTelemetry spans (OTLP JSON)" }, "Export as OpenTelemetry");
    this.importButton = button({ "data-testid": "import-run", class: "ghost", title: "Open a run file exported before" }, "Import run");
    this.prev = button({ "data-testid": "trace-prev", "aria-label": "Previous step", title: "Previous step (←)" }, "◀");
    this.play = button({ "data-testid": "trace-play", "aria-pressed": "false", title: "Play the steps one after the other" }, "Play");
    this.next = button({ "data-testid": "trace-next", "aria-label": "Next step", title: "Next step (→)" }, "▶");
    this.scrubber = el("input", { type: "range", min: "1", max: "1", value: "1", step: "1", class: "insp-scrubber", "aria-label": "Step" });
    this.stepLabel = el("span", { class: "insp-step-label", "data-testid": "trace-step", "aria-live": "polite" });
    this.head = el("div", { class: "insp-head" });
    this.stepBox = el("section", { class: "insp-step", "aria-label": "The step shown" });
    this.forkBox = el("div", { class: "insp-forkbox", hidden: "" });
    this.compare = el("section", { class: "insp-compare", "data-testid": "trace-fork", hidden: "", "aria-label": "Fork and original" });
    this.note = el("p", { class: "insp-note", role: "status" });
    this.controls = el("div", { class: "insp-controls", role: "group", "aria-label": "Step through the run" },
      this.prev, this.play, this.next, this.scrubber, this.stepLabel);
    this.empty = el("p", { class: "muted insp-empty" }, "Run the lesson: each run of run_agent shows here as steps you can go through, fork, export and share.");
    this.body = el("div", { class: "insp-body" }, this.head, this.controls, this.stepBox, this.forkBox, this.compare);
    this.root.replaceChildren(
      el("div", { class: "insp-bar" }, this.runList,
        el("div", { class: "insp-io" }, this.exportButton, this.otelButton, this.importButton, this.fileInput)),
      this.note, this.empty, this.body);

    this.prev.addEventListener("click", () => this.move(-1));
    this.next.addEventListener("click", () => this.move(1));
    this.play.addEventListener("click", () => (this.timer ? this.pause() : this.start()));
    this.scrubber.addEventListener("input", () => this.show(Number(this.scrubber.value) - 1));
    this.root.addEventListener("keydown", (event) => this.key(event));
    this.exportButton.addEventListener("click", () => this.exportJson());
    this.otelButton.addEventListener("click", () => this.exportOtel());
    this.importButton.addEventListener("click", () => this.fileInput.click());
    this.fileInput.addEventListener("change", () => this.importFiles());
  }

  clear() {
    this.pause();
    this.book.clear();
    this.run = null; // the run shown
    this.index = 0; // its step shown (0-based)
    this.follow = true; // keep showing the newest step while a run goes on
    this.waiting = null; // an approval pause: {run, step, tool, since}
    this.forking = null;
    this.frame = 0;
    this.note.textContent = "";
    this.draw();
  }

  // --- events in -----------------------------------------------------------------------------

  /** One event of a live run (or of a fork: source "fork"). */
  add(event, { source = "live" } = {}) {
    const run = this.book.add(event, { source });
    if (event.type === "run_start" && source === "fork" && this.forking && !this.forking.run && run.parent === null) {
      this.forking.run = run;
      run.forkOf = { run: this.forking.from.id, step: this.forking.step };
    }
    if (event.type === "approval_needed" && this.waiting) this.waiting = null;
    // While a run goes on, its newest step is shown, unless the learner went to look elsewhere.
    if (source !== "fork" && run.parent === null && (this.follow || !this.run)) this.run = run;
    if (this.follow && this.run) this.index = Math.max(0, this.run.steps.length - 1);
    this.schedule();
  }

  /** A run paused at a tool that needs a person (approval.js shows the dialog). */
  paused({ tool }) {
    const run = this.book.open[this.book.open.length - 1] || this.run;
    if (!run) return;
    this.waiting = { run, step: run.steps.length, tool, since: performance.now() };
    this.schedule();
  }

  /** The pause ended (an answer, Stop, or the run's end). */
  resumed() {
    this.waiting = null;
    this.schedule();
  }

  /** The worker was restarted: the runs it kept for forks are gone. */
  forget() {
    for (const run of this.book.runs) if (run.source !== "imported") run.source = "gone";
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  // --- moving --------------------------------------------------------------------------------

  get count() {
    return this.run ? this.run.steps.length : 0;
  }

  /** Show the run with this id (at a step, else its first). */
  open(id, index = 0) {
    const run = this.book.byId.get(id);
    if (!run) return;
    this.pause();
    this.run = run;
    this.follow = false;
    this.index = Math.max(0, Math.min(index, run.steps.length - 1));
    this.draw();
  }

  show(index) {
    if (!this.run) return;
    const next = Math.max(0, Math.min(index, this.count - 1));
    this.follow = next === this.count - 1 && !this.run.stop;
    if (next === this.index && this.drawn === this.run) return;
    this.index = next;
    const started = performance.now();
    this.drawStep();
    measure("looplab:inspector-step", started);
  }

  move(delta) {
    this.show(this.index + delta);
    if (delta !== 0 && this.timer && this.index >= this.count - 1) this.pause();
  }

  start() {
    if (!this.run || this.count < 2) return;
    if (this.index >= this.count - 1) this.show(0);
    this.timer = setInterval(() => (this.index >= this.count - 1 ? this.pause() : this.move(1)), PLAY_MS);
    this.play.setAttribute("aria-pressed", "true");
    this.play.textContent = "Pause";
  }

  pause() {
    clearInterval(this.timer);
    this.timer = 0;
    if (this.play) {
      this.play.setAttribute("aria-pressed", "false");
      this.play.textContent = "Play";
    }
  }

  key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target.closest("textarea, select, input") || target.isContentEditable) return; // the scrubber moves itself
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      this.move(event.key === "ArrowLeft" ? -1 : 1);
    }
  }

  // --- drawing -------------------------------------------------------------------------------

  draw() {
    this.frame = 0;
    const started = performance.now();
    const has = this.book.runs.length > 0;
    this.empty.hidden = has;
    this.body.hidden = !has;
    this.exportButton.disabled = this.otelButton.disabled = !this.run;
    this.drawRuns();
    if (this.run) {
      this.drawHead();
      this.drawStep();
      this.drawCompare();
    }
    measure("looplab:inspector-render", started);
  }

  drawRuns() {
    const items = this.book.runs.map((run) => {
      const label = [run.agent ? run.agent : "run", `#${run.number}`];
      if (run.forkOf) label.push(`fork of #${this.book.byId.get(run.forkOf.run)?.number ?? "?"} at step ${run.forkOf.step}`);
      if (run.source === "imported") label.push("imported");
      const state = this.waiting && this.waiting.run === run ? "paused: asking a person" : outcome(run);
      const button = el("button", { type: "button", class: "insp-run", "data-run": run.id, "aria-current": run === this.run ? "true" : "false" },
        el("span", { class: "insp-run-name" }, label.join(" · ")),
        el("span", { class: "insp-run-state" }, short(state, 60)));
      button.addEventListener("click", () => this.open(run.id));
      return el("li", { class: `insp-depth-${Math.min(run.depth, 3)}` }, button);
    });
    this.runList.replaceChildren(...items);
  }

  drawHead() {
    const run = this.run;
    const parts = [el("b", {}, run.agent ? `${run.agent}: ` : "Task: "), `“${short(run.task, 300)}”`];
    const meta = [`tools: ${run.tools.join(", ") || "none"}`, run.maxSteps !== null ? `at most ${plural(run.maxSteps, "step")}` : null].filter(Boolean);
    const head = [el("p", { class: "insp-task" }, ...parts), el("p", { class: "muted" }, meta.join(" · "))];
    if (run.parent !== null) {
      const parent = this.book.byId.get(run.parent);
      const back = el("button", { type: "button", class: "link" }, `back to ${parent.agent || "run"} #${parent.number}`);
      back.addEventListener("click", () => this.open(parent.id, parent.steps.findIndex((s) => s.nested.includes(run.id))));
      head.push(el("p", { class: "muted" }, "Run by a tool of another run — ", back));
    }
    if (run.blocked) head.push(el("p", { class: "ev-bad" }, `The input gate refused the task before any step: ${run.blocked.reason}`));
    head.push(el("p", { class: `insp-outcome ${run.stop && run.stop.stopped === "final" ? "ev-ok" : run.stop ? "ev-bad" : ""}` }, `Outcome: ${outcome(run)}`));
    this.head.replaceChildren(...head);
  }

  drawStep() {
    const run = this.run;
    const n = this.count;
    this.drawn = run;
    this.scrubber.max = String(Math.max(1, n));
    this.scrubber.value = String(this.index + 1);
    this.scrubber.disabled = n < 2;
    // aria-disabled, not disabled: the button at an end keeps the focus, so ←/→ go on working
    this.prev.setAttribute("aria-disabled", String(this.index <= 0));
    this.next.setAttribute("aria-disabled", String(this.index >= n - 1));
    this.play.disabled = n < 2;
    this.stepLabel.textContent = n ? `step ${this.index + 1} of ${n}` : "no steps";
    if (!n) {
      this.stepBox.replaceChildren(el("p", { class: "muted" }, run.stop ? "This run took no step." : "Waiting for the first step…"));
      return;
    }
    const step = run.steps[this.index];
    const box = [];
    const title = el("h3", {}, `Step ${step.n}`);
    if (run.forkOf && run.firstDifference === step.n) title.append(el("span", { class: "insp-diff" }, " · first step that differs from the original"));
    if (run.forkOf && step.n < run.forkOf.step) title.append(el("span", { class: "muted" }, " · replayed from the record"));
    box.push(title, this.tokens(step));
    if (step.call) box.push(this.context(step.call));
    box.push(this.reply(step));
    for (const tool of step.tools) box.push(this.tool(run, step, tool));
    if (this.waiting && this.waiting.run === run && this.waiting.step === step.n) {
      box.push(el("p", { class: "insp-waiting", "data-role": "approval-pause" }, `⏸ Paused: ${this.waiting.tool} waits for a person (Approve or Reject in the dialog).`));
    }
    for (const block of step.blocks) box.push(el("p", { class: "ev-bad" }, `${block.gate} gate refused: ${block.reason}`));
    for (const id of step.nested) box.push(this.nestedLink(id));
    if (this.index === n - 1 && run.stop) box.push(el("p", { class: `insp-stop ${run.stop.stopped === "final" ? "ev-ok" : "ev-bad"}` }, `Stop: ${outcome(run)}`));
    const fork = el("button", { type: "button", "data-testid": "fork", class: "ghost" }, "Fork from this step…");
    const why = this.hooks.whyNoFork(run);
    if (why) {
      fork.disabled = true;
      fork.title = why;
    }
    fork.addEventListener("click", () => this.openFork(run, step));
    box.push(el("div", { class: "insp-actions" }, fork, why ? el("span", { class: "muted" }, why) : null));
    this.stepBox.replaceChildren(...box);
  }

  tokens(step) {
    const call = step.call || {};
    const parts = [];
    if (call.context_tokens !== undefined) parts.push(`sent ${call.context_tokens} tokens (estimated)`);
    const usage = usageOf(step.reply);
    if (usage) {
      parts.push(`usage: ${usage.input} in, ${usage.output} out`);
      const cost = costOf(usage, this.hooks.prices());
      parts.push(cost === null ? "no price set (Settings)" : `cost $${cost.toFixed(6)}`);
    }
    if (step.reply && step.reply.ms !== undefined) parts.push(`model ${Math.round(step.reply.ms)} ms`);
    return el("p", { class: "insp-tokens" }, parts.join(" · "));
  }

  context(call) {
    const messages = call.context || [];
    const sizes = call.context_sizes || [];
    const roles = Object.entries(tokensByRole(call)).map(([role, tokens]) => `${role} ${tokens}`).join(" · ");
    const left = call.left_out;
    const summary = el("summary", {}, `Context sent: ${plural(messages.length, "message")}`,
      call.context_tokens !== undefined ? `, ${call.context_tokens} tokens` : "", roles ? ` — ${roles}` : "",
      left && left.messages ? el("span", { class: "insp-left" }, ` · left out by the memory window: ${plural(left.messages, "message")} (${left.tokens} tokens)`) : "");
    const list = el("ol", { class: "insp-ctx" });
    messages.forEach((m, i) => {
      const size = sizes[i] ?? m.tokens;
      const calls = (m.tool_calls || []).map((c) => `${c.function?.name}(${short(c.function?.arguments, 120)})`).join(", ");
      const text = typeof m.content === "string" ? m.content : m.content ? JSON.stringify(m.content) : "";
      list.append(el("li", { class: `msg msg-${m.role}` },
        el("span", { class: "msg-role" }, m.role || "?"),
        size !== undefined ? el("span", { class: "msg-tokens" }, `${size} tokens`) : null,
        m.tool_call_id ? el("span", { class: "msg-id" }, `answers ${m.tool_call_id}`) : null,
        el("span", { class: "insp-msg-text" }, short(text || calls, 240))));
    });
    return el("details", { class: "insp-context" }, summary, list);
  }

  reply(step) {
    const reply = step.reply;
    if (!reply) return el("p", { class: "muted" }, step.call ? "The model has not answered yet (or its call failed: see the outcome)." : "");
    if (reply.ok === false) return el("p", { class: "ev-bad" }, `Unusable reply: ${reply.content}`);
    const message = reply.message || { content: reply.content, thought: reply.thought };
    const box = el("div", { class: "insp-reply" }, el("h4", {}, "Reply"));
    if (message.thought || reply.thought) box.append(el("p", { class: "ev-thought" }, `thought: ${message.thought || reply.thought}`));
    if (message.content) box.append(el("pre", { class: "insp-text" }, message.content));
    for (const call of message.tool_calls || []) {
      box.append(el("pre", { class: "msg-call" }, `${call.id}: ${call.function?.name}(${pretty(call.function?.arguments)})`));
    }
    if (!message.content && !(message.tool_calls || []).length && reply.tool_calls) box.append(el("p", {}, `asks for ${plural(reply.tool_calls, "tool call")}`));
    return box;
  }

  tool(run, step, { call, result, approval }) {
    const name = (call && call.tool) || (result && result.tool) || "?";
    const box = el("div", { class: "insp-tool" }, el("h4", {}, el("code", {}, name), call ? el("span", { class: "muted" }, ` ${call.call_id}`) : ""));
    if (call) box.append(el("pre", { class: "insp-args" }, pretty(call.arguments)));
    if (approval) box.append(el("p", { class: approval.approved ? "ev-ok" : "ev-bad" }, approval.approved ? "approved by a person" : "not approved"));
    if (result) {
      box.append(el("p", { class: result.ok ? "ev-ok" : "ev-bad" }, `${result.ok ? "ok" : "error"} · ${Number(result.ms || 0).toFixed(1)} ms`),
        el("pre", { class: "insp-result" }, String(result.result ?? "")));
    } else if (!(this.waiting && this.waiting.run === run && this.waiting.step === step.n)) {
      box.append(el("p", { class: "muted" }, run.stop ? "not run" : "running…"));
    }
    return box;
  }

  nestedLink(id) {
    const nested = this.book.byId.get(id);
    const button = el("button", { type: "button", class: "link" }, `open ${nested.agent || "run"} #${nested.number} (${outcome(nested)})`);
    button.addEventListener("click", () => this.open(id));
    return el("p", { class: "insp-nested" }, "This step ran another agent: ", button);
  }

  // --- forks ---------------------------------------------------------------------------------

  openFork(run, step) {
    const choices = step.tools.filter((t) => t.result && t.result.call_id).map((t) => ({
      label: `the result of ${t.result.tool} (${t.result.call_id})`, kind: "result", callId: t.result.call_id, text: String(t.result.result ?? ""),
    }));
    const message = step.reply && step.reply.message;
    if (message) {
      const plain = !(message.tool_calls || []).length && !message.thought && typeof message.content === "string";
      choices.push({ label: "the model's reply", kind: "reply", text: plain ? message.content : JSON.stringify(message, null, 2) });
    } else if (step.call) {
      choices.push({ label: "the model's reply", kind: "reply", text: "" });
    }
    const select = el("select", { "aria-label": "What to change" });
    choices.forEach((c, i) => select.append(new Option(c.label, String(i))));
    const editor = el("textarea", { "data-testid": "fork-editor", rows: "6", spellcheck: "false", "aria-label": "The new value (JSON or text)" });
    const message_ = el("p", { class: "insp-fork-msg", role: "status" });
    const go = el("button", { type: "button", class: "primary", "data-testid": "fork-run" }, "Run the fork");
    const cancel = el("button", { type: "button" }, "Cancel");
    const fill = () => (editor.value = choices[Number(select.value)].text);
    select.addEventListener("change", fill);
    fill();
    cancel.addEventListener("click", () => this.closeFork());
    go.addEventListener("click", () => this.runFork(run, step, choices[Number(select.value)], editor.value, message_, go));
    this.forkBox.replaceChildren(
      el("h4", {}, `Fork from step ${step.n}: change `, select),
      el("p", { class: "muted" }, `Steps before ${step.n} are replayed from this run, step ${step.n} uses your edit, and later steps call the model again.`),
      editor, el("div", { class: "insp-actions" }, go, cancel), message_);
    this.forkBox.hidden = false;
    editor.focus();
  }

  closeFork() {
    this.forkBox.hidden = true;
    this.forkBox.replaceChildren();
  }

  async runFork(run, step, choice, text, message, button) {
    const why = this.hooks.whyNoFork(run);
    if (why) {
      message.textContent = why;
      return;
    }
    const request = { run: run.number, step: step.n, ...(choice.kind === "result" ? { result: text, call_id: choice.callId } : { reply: text }) };
    this.forking = { from: run, step: step.n, run: null };
    button.disabled = true;
    message.textContent = "Running the fork…";
    let result;
    try {
      result = await this.hooks.fork(request);
    } finally {
      button.disabled = false;
    }
    const fork = this.forking.run;
    this.forking = null;
    if (!result || !result.ok || !result.fork) {
      message.textContent = (result && (result.error || (result.outcome !== "checked" ? "The fork was stopped." : ""))) || "The fork did not run.";
      this.schedule();
      return;
    }
    if (fork) {
      fork.firstDifference = result.fork.first_difference;
      this.closeFork();
      this.open(fork.id, Math.max(0, (result.fork.first_difference || step.n) - 1));
    }
  }

  drawCompare() {
    const run = this.run;
    const original = run.forkOf ? this.book.byId.get(run.forkOf.run) : null;
    const fork = original ? run : [...this.book.runs].reverse().find((r) => r.forkOf && r.forkOf.run === run.id);
    const base = original || (fork ? run : null);
    if (!fork || !base) {
      this.compare.hidden = true;
      return;
    }
    const column = (r, title) => {
      const stop = r.stop || {};
      const open = el("button", { type: "button", class: "link" }, r === this.run ? "shown" : "open");
      open.disabled = r === this.run;
      open.addEventListener("click", () => this.open(r.id, Math.max(0, (fork.firstDifference || 1) - 1)));
      return el("div", { class: "insp-col", "data-role": title.toLowerCase() },
        el("h4", {}, `${title} · #${r.number} `, open),
        el("dl", {}, el("dt", {}, "stopped"), el("dd", { "data-field": "stopped" }, stop.stopped || "—"),
          el("dt", {}, "answer"), el("dd", { "data-field": "answer" }, stop.answer ?? stop.detail ?? "—"),
          el("dt", {}, "steps"), el("dd", { "data-field": "steps" }, String(stop.steps ?? r.steps.length))));
    };
    const diff = fork.firstDifference;
    this.compare.replaceChildren(
      el("p", { class: "insp-diff-line" }, `Fork of #${base.number} at step ${fork.forkOf.step}: `,
        diff ? el("b", { "data-role": "first-difference" }, `first differs at step ${diff}`) : el("b", { "data-role": "first-difference" }, "no step differs")),
      el("div", { class: "insp-cols" }, column(base, "Original"), column(fork, "Fork")));
    this.compare.hidden = false;
  }

  // --- export and import ---------------------------------------------------------------------

  fileName(run, suffix) {
    return `loop-lab-${this.hooks.lesson() || "run"}-run-${run.number}${suffix}.json`;
  }

  exportJson() {
    if (!this.run) return;
    const data = exportRun(this.book, this.run, { lesson: this.run.source === "imported" ? this.run.lesson : this.hooks.lesson() });
    this.hooks.download(this.fileName(this.run, ""), JSON.stringify(data, null, 1));
  }

  exportOtel() {
    if (!this.run) return;
    const data = toOtlp(this.book.family(this.run), { model: this.hooks.model ? this.hooks.model() : "" });
    this.hooks.download(this.fileName(this.run, ".otlp"), JSON.stringify(data, null, 1));
  }

  async importFiles() {
    const file = this.fileInput.files[0];
    this.fileInput.value = "";
    if (!file) return;
    try {
      this.load(JSON.parse(await file.text()), file.name);
    } catch (error) {
      this.note.textContent = `${file.name} could not be opened: ${error.message}`;
    }
  }

  /** The run shown, as a run file (for a shared link), or null. */
  shownRun() {
    return this.run ? exportRun(this.book, this.run, { lesson: this.hooks.lesson() }) : null;
  }

  /** Open a run file (runs.js format) beside the runs shown; returns the top run. */
  load(data, name = "a run file") {
    const started = performance.now();
    readRunFile(data);
    const prefix = `import${++this.imports}:`;
    const meta = new Map((data.runs || []).map((r) => [r.run, r]));
    const added = [];
    for (const event of data.events) {
      const run = this.book.add(event, { source: "imported", prefix, at: Date.now() });
      if (!added.includes(run)) added.push(run);
    }
    this.book.open = [];
    for (const run of added) {
      const m = meta.get(run.number);
      if (!m) continue;
      if (typeof m.startedAt === "number") run.startedAt = m.startedAt;
      run.forkOf = m.forkOf && typeof m.forkOf === "object" ? { ...m.forkOf, run: prefix + m.forkOf.run } : null;
      if (run.forkOf && !this.book.byId.has(run.forkOf.run)) run.forkOf = null;
      run.firstDifference = m.firstDifference ?? null;
      run.lesson = data.lesson ?? null;
    }
    const top = added.find((r) => r.number === data.run) || added[0];
    this.note.textContent = `Opened ${name}: ${plural(added.length, "run")}${data.lesson ? ` of ${data.lesson}` : ""}.`;
    this.open(top.id);
    measure("looplab:inspector-load", started);
    return top;
  }
}
