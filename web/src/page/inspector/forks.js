// Forks in the run inspector: the form that edits one step (its reply, or one tool's result) and
// asks the worker to re-run from there, and the comparison of a fork with its original. The fork's
// run is the one the worker's result names (`fork.run`, bridge.py): opened, not looked for.

import { el } from "../ui/dom.js";

export class Forks {
  /**
   * @param {object} parts  {book (RunBook), box (the form's element), compare (the comparison's),
   *                        shown () -> the run on screen, open(id, index), schedule()}
   * @param {object} hooks  the inspector's: fork(request) -> Promise<result>, whyNoFork(run)
   */
  constructor(parts, hooks) {
    this.parts = parts;
    this.hooks = hooks;
  }

  /** The form: what to change at this step, prefilled with what the run had. */
  edit(run, step) {
    const choices = step.tools
      .filter((t) => t.result && t.result.call_id)
      .map((t) => ({
        label: `the result of ${t.result.tool} (${t.result.call_id})`,
        kind: "result",
        callId: t.result.call_id,
        text: String(t.result.result ?? ""),
      }));
    const message = step.reply && step.reply.message;
    if (message) {
      const plain = !(message.tool_calls || []).length && !message.thought && typeof message.content === "string";
      choices.push({
        label: "the model's reply",
        kind: "reply",
        text: plain ? message.content : JSON.stringify(message, null, 2),
      });
    } else if (step.call) {
      choices.push({ label: "the model's reply", kind: "reply", text: "" });
    }
    const select = el("select", { "aria-label": "What to change" });
    choices.forEach((c, i) => select.append(new Option(c.label, String(i))));
    const editor = el("textarea", {
      "data-testid": "fork-editor",
      rows: "6",
      spellcheck: "false",
      "aria-label": "The new value (JSON or text)",
    });
    const note = el("p", { class: "insp-fork-msg", role: "status" });
    const go = el("button", { type: "button", class: "primary", "data-testid": "fork-run" }, "Run the fork");
    const cancel = el("button", { type: "button" }, "Cancel");
    const fill = () => (editor.value = choices[Number(select.value)].text);
    select.addEventListener("change", fill);
    fill();
    cancel.addEventListener("click", () => this.close());
    go.addEventListener("click", () => this.run(run, step, choices[Number(select.value)], editor.value, note, go));
    this.parts.box.replaceChildren(
      el("h4", {}, `Fork from step ${step.n}: change `, select),
      el(
        "p",
        { class: "muted" },
        `Steps before ${step.n} are replayed from this run, step ${step.n} uses your edit, and later steps call the model again.`,
      ),
      editor,
      el("div", { class: "insp-actions" }, go, cancel),
      note,
    );
    this.parts.box.hidden = false;
    editor.focus();
  }

  close() {
    this.parts.box.hidden = true;
    this.parts.box.replaceChildren();
  }

  async run(run, step, choice, text, note, button) {
    const why = this.hooks.whyNoFork(run);
    if (why) {
      note.textContent = why;
      return;
    }
    const request = {
      run: run.number,
      step: step.n,
      ...(choice.kind === "result" ? { result: text, call_id: choice.callId } : { reply: text }),
    };
    button.disabled = true;
    note.textContent = "Running the fork…";
    let result;
    try {
      result = await this.hooks.fork(request);
    } finally {
      button.disabled = false;
    }
    if (!result || !result.ok || !result.fork) {
      note.textContent =
        (result && (result.error || (result.outcome !== "checked" ? "The fork was stopped." : ""))) ||
        "The fork did not run.";
      this.parts.schedule();
      return;
    }
    const fork = this.parts.book.byId.get(String(result.fork.run)); // the fork's events came through add(event, {source: "fork"})
    if (fork) {
      fork.forkOf = { run: run.id, step: step.n };
      fork.firstDifference = result.fork.first_difference;
      this.close();
      this.parts.open(fork.id, Math.max(0, (result.fork.first_difference || step.n) - 1));
    }
  }

  /** The fork beside its original (shown with either of them): how each stopped, and the first step that differs. */
  drawCompare() {
    const { book, compare } = this.parts;
    const shown = this.parts.shown();
    const original = shown.forkOf ? book.byId.get(shown.forkOf.run) : null;
    const fork = original ? shown : [...book.runs].reverse().find((r) => r.forkOf && r.forkOf.run === shown.id);
    const base = original || (fork ? shown : null);
    if (!fork || !base) {
      compare.hidden = true;
      return;
    }
    const column = (r, title) => {
      const stop = r.stop || {};
      const open = el("button", { type: "button", class: "link" }, r === shown ? "shown" : "open");
      open.disabled = r === shown;
      open.addEventListener("click", () => this.parts.open(r.id, Math.max(0, (fork.firstDifference || 1) - 1)));
      return el(
        "div",
        { class: "insp-col", "data-role": title.toLowerCase() },
        el("h4", {}, `${title} · #${r.number} `, open),
        el(
          "dl",
          {},
          el("dt", {}, "stopped"),
          el("dd", { "data-field": "stopped" }, stop.stopped || "—"),
          el("dt", {}, "answer"),
          el("dd", { "data-field": "answer" }, stop.answer ?? stop.detail ?? "—"),
          el("dt", {}, "steps"),
          el("dd", { "data-field": "steps" }, String(stop.steps ?? r.steps.length)),
        ),
      );
    };
    const diff = fork.firstDifference;
    compare.replaceChildren(
      el(
        "p",
        { class: "insp-diff-line" },
        `Fork of #${base.number} at step ${fork.forkOf.step}: `,
        diff
          ? el("b", { "data-role": "first-difference" }, `first differs at step ${diff}`)
          : el("b", { "data-role": "first-difference" }, "no step differs"),
      ),
      el("div", { class: "insp-cols" }, column(base, "Original"), column(fork, "Fork")),
    );
    compare.hidden = false;
  }
}
