// The run inspector: a run as a timeline of steps, stepped with ◀ / ▶ / play, the ←/→ keys and a
// scrubber. Each step shows what the model was sent (every message with its size, tokens per role,
// what the memory window left out), its reply (text, thought, tool calls), each tool's result and
// time, the step's tokens and, when the model reported usage, the cost at the learner's prices.
// A step can be forked: its reply or one tool result edited and the run re-run from there (the
// worker replays the steps before it, bridge.py; forks.js); the fork is shown beside the original
// with the first step that differs. Runs can be exported (JSON, or OpenTelemetry spans) and imported.
// A step's parts are drawn by steps.js.
//
// The runs come from runs.js; everything the page needs (fork, prices, the lesson, the key to
// hide) arrives as hooks, so this module knows nothing of main.js.

import { el } from "../ui/dom.js";
import { RunBook, exportRun, outcome } from "./runs.js";
import { Forks } from "./forks.js";
import { contextSent, replyBox, tokensLine, toolBox } from "./steps.js";
import { toOtlp } from "./otel.js";
import { short, plural } from "../ui/text.js";

const PLAY_MS = 700;

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
   *                        model() -> the live model's name, or ""; download(name, text) (which
   *                        keeps the key out)
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.book = new RunBook();
    this.imports = 0;
    this.build();
    this.forks = new Forks(
      {
        book: this.book,
        box: this.forkBox,
        compare: this.compare,
        shown: () => this.run,
        open: (id, index) => this.open(id, index),
        schedule: () => this.schedule(),
      },
      hooks,
    );
    this.clear();
  }

  // --- the frame, made once ------------------------------------------------------------------

  build() {
    const button = (attrs, text) => el("button", { type: "button", ...attrs }, text);
    this.runList = el("ol", { class: "insp-runs", "data-testid": "trace-runs", "aria-label": "Runs" });
    this.fileInput = el("input", { type: "file", accept: "application/json,.json", hidden: "" });
    this.exportButton = button(
      { "data-testid": "export-run", class: "ghost", title: "Download this run as JSON (Import opens it again)" },
      "Export run",
    );
    this.otelButton = button(
      { "data-testid": "export-otel", class: "ghost", title: "Download this run as OpenTelemetry spans (OTLP JSON)" },
      "Export as OpenTelemetry",
    );
    this.importButton = button(
      { "data-testid": "import-run", class: "ghost", title: "Open a run file exported before" },
      "Import run",
    );
    this.prev = button({ "data-testid": "trace-prev", "aria-label": "Previous step", title: "Previous step (←)" }, "◀");
    this.play = button(
      { "data-testid": "trace-play", "aria-pressed": "false", title: "Play the steps one after the other" },
      "Play",
    );
    this.next = button({ "data-testid": "trace-next", "aria-label": "Next step", title: "Next step (→)" }, "▶");
    this.scrubber = el("input", {
      type: "range",
      min: "1",
      max: "1",
      value: "1",
      step: "1",
      class: "insp-scrubber",
      "aria-label": "Step",
    });
    this.stepLabel = el("span", { class: "insp-step-label", "data-testid": "trace-step", "aria-live": "polite" });
    this.head = el("div", { class: "insp-head" });
    this.stepBox = el("section", { class: "insp-step", "aria-label": "The step shown" });
    this.forkBox = el("div", { class: "insp-forkbox", hidden: "" });
    this.compare = el("section", {
      class: "insp-compare",
      "data-testid": "trace-fork",
      hidden: "",
      "aria-label": "Fork and original",
    });
    this.note = el("p", { class: "insp-note", role: "status" });
    // The current step's reply as the model writes it (a streamed reply), until its model_reply
    // event brings the whole reply; not a live region: the finished run is announced once.
    this.streamBox = el("p", { class: "insp-stream", "data-testid": "stream-text" });
    this.controls = el(
      "div",
      { class: "insp-controls", role: "group", "aria-label": "Step through the run" },
      this.prev,
      this.play,
      this.next,
      this.scrubber,
      this.stepLabel,
    );
    this.empty = el(
      "p",
      { class: "muted insp-empty" },
      "Run the lesson: each run of run_agent shows here as steps you can go through, fork, export and share.",
    );
    this.body = el("div", { class: "insp-body" }, this.head, this.controls, this.stepBox, this.forkBox, this.compare);
    this.root.replaceChildren(
      el(
        "div",
        { class: "insp-bar" },
        this.runList,
        el("div", { class: "insp-io" }, this.exportButton, this.otelButton, this.importButton, this.fileInput),
      ),
      this.note,
      this.empty,
      this.body,
    );

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
    this.liveText = ""; // the current step's reply text so far, while it streams
    this.frame = 0;
    this.note.textContent = "";
    this.draw();
  }

  // --- events in -----------------------------------------------------------------------------

  /** One event of a live run (or of a fork: source "fork"). */
  add(event, { source = "live" } = {}) {
    const run = this.book.add(event, { source });
    if (event.type === "model_call" || event.type === "model_reply" || event.type === "run_end") this.liveText = "";
    if (event.type === "approval_needed" && this.waiting) this.waiting = null;
    // While a run goes on, its newest step is shown, unless the learner went to look elsewhere.
    if (source !== "fork" && run.parent === null && (this.follow || !this.run)) this.run = run;
    if (this.follow && this.run) this.index = Math.max(0, this.run.steps.length - 1);
    this.schedule();
  }

  /** A piece of the current step's reply text as it arrives (runner.js `delta`): shown at once
   * under the step, replaced by the whole reply when its model_reply event comes. */
  streaming(text) {
    this.liveText += text;
    this.streamBox.textContent = this.liveText;
    if (!this.streamBox.isConnected) this.schedule();
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
      this.forks.drawCompare();
    }
    measure("looplab:inspector-render", started);
  }

  drawRuns() {
    const items = this.book.runs.map((run) => {
      const label = [run.agent ? run.agent : "run", `#${run.number}`];
      if (run.forkOf)
        label.push(`fork of #${this.book.byId.get(run.forkOf.run)?.number ?? "?"} at step ${run.forkOf.step}`);
      if (run.source === "imported") label.push("imported");
      const state = this.waiting && this.waiting.run === run ? "paused: asking a person" : outcome(run);
      const button = el(
        "button",
        { type: "button", class: "insp-run", "data-run": run.id, "aria-current": run === this.run ? "true" : "false" },
        el("span", { class: "insp-run-name" }, label.join(" · ")),
        el("span", { class: "insp-run-state" }, short(state, 60)),
      );
      button.addEventListener("click", () => this.open(run.id));
      return el("li", { class: `insp-depth-${Math.min(run.depth, 3)}` }, button);
    });
    this.runList.replaceChildren(...items);
  }

  drawHead() {
    const run = this.run;
    const parts = [el("b", {}, run.agent ? `${run.agent}: ` : "Task: "), `“${short(run.task, 300)}”`];
    const meta = [
      `tools: ${run.tools.join(", ") || "none"}`,
      run.maxSteps !== null ? `at most ${plural(run.maxSteps, "step")}` : null,
    ].filter(Boolean);
    const head = [el("p", { class: "insp-task" }, ...parts), el("p", { class: "muted" }, meta.join(" · "))];
    if (run.parent !== null) {
      const parent = this.book.byId.get(run.parent);
      const back = el(
        "button",
        { type: "button", class: "link" },
        `back to ${parent.agent || "run"} #${parent.number}`,
      );
      back.addEventListener("click", () =>
        this.open(
          parent.id,
          parent.steps.findIndex((s) => s.nested.includes(run.id)),
        ),
      );
      head.push(el("p", { class: "muted" }, "Run by a tool of another run — ", back));
    }
    if (run.blocked)
      head.push(el("p", { class: "ev-bad" }, `The input gate refused the task before any step: ${run.blocked.reason}`));
    head.push(
      el(
        "p",
        { class: `insp-outcome ${run.stop && run.stop.stopped === "final" ? "ev-ok" : run.stop ? "ev-bad" : ""}` },
        `Outcome: ${outcome(run)}`,
      ),
    );
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
      this.stepBox.replaceChildren(
        el("p", { class: "muted" }, run.stop ? "This run took no step." : "Waiting for the first step…"),
      );
      return;
    }
    const step = run.steps[this.index];
    const box = [];
    const title = el("h3", {}, `Step ${step.n}`);
    if (run.forkOf && run.firstDifference === step.n)
      title.append(el("span", { class: "insp-diff" }, " · first step that differs from the original"));
    if (run.forkOf && step.n < run.forkOf.step)
      title.append(el("span", { class: "muted" }, " · replayed from the record"));
    const waiting = Boolean(this.waiting && this.waiting.run === run && this.waiting.step === step.n);
    box.push(title, tokensLine(step, this.hooks.prices()));
    if (step.call) box.push(contextSent(step.call));
    box.push(replyBox(step));
    if (this.liveText && !step.reply && !run.stop && this.index === n - 1) box.push(this.streamBox);
    for (const tool of step.tools) box.push(toolBox(tool, { ended: Boolean(run.stop), waiting }));
    if (waiting) {
      box.push(
        el(
          "p",
          { class: "insp-waiting", "data-role": "approval-pause" },
          `⏸ Paused: ${this.waiting.tool} waits for a person (Approve or Reject in the dialog).`,
        ),
      );
    }
    for (const block of step.blocks)
      box.push(el("p", { class: "ev-bad" }, `${block.gate} gate refused: ${block.reason}`));
    for (const id of step.nested) box.push(this.nestedLink(id));
    if (this.index === n - 1 && run.stop)
      box.push(
        el("p", { class: `insp-stop ${run.stop.stopped === "final" ? "ev-ok" : "ev-bad"}` }, `Stop: ${outcome(run)}`),
      );
    const fork = el("button", { type: "button", "data-testid": "fork", class: "ghost" }, "Fork from this step…");
    const why = this.hooks.whyNoFork(run);
    if (why) {
      fork.disabled = true;
      fork.title = why;
    }
    fork.addEventListener("click", () => this.forks.edit(run, step));
    box.push(el("div", { class: "insp-actions" }, fork, why ? el("span", { class: "muted" }, why) : null));
    this.stepBox.replaceChildren(...box);
  }

  nestedLink(id) {
    const nested = this.book.byId.get(id);
    const button = el(
      "button",
      { type: "button", class: "link" },
      `open ${nested.agent || "run"} #${nested.number} (${outcome(nested)})`,
    );
    button.addEventListener("click", () => this.open(id));
    return el("p", { class: "insp-nested" }, "This step ran another agent: ", button);
  }

  // --- export and import ---------------------------------------------------------------------

  fileName(run, suffix) {
    return `loop-lab-${this.hooks.lesson() || "run"}-run-${run.number}${suffix}.json`;
  }

  exportJson() {
    if (!this.run) return;
    const data = exportRun(this.book, this.run, {
      lesson: this.run.source === "imported" ? this.run.lesson : this.hooks.lesson(),
    });
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
    const { added, top } = this.book.importFile(data, `import${++this.imports}:`);
    this.note.textContent = `Opened ${name}: ${plural(added.length, "run")}${data.lesson ? ` of ${data.lesson}` : ""}.`;
    this.open(top.id);
    measure("looplab:inspector-load", started);
    return top;
  }
}
