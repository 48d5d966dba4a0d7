// The run's panels: output console (stdout/stderr, traceback), checks (✓/✗/– with messages),
// trace (the agent's events step by step) and context (what the model was sent last).

import { el } from "./dom.js";

const MAX_OUTPUT = 200_000; // characters kept in the console; a print loop must not eat the page

function pretty(value) {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 1);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 1);
}

function shorten(text, limit = 160) {
  text = String(text ?? "");
  return text.length <= limit ? text : text.slice(0, limit - 1) + "…";
}

// --- output ------------------------------------------------------------------------------------

// A print loop must not stall the page. Text is queued as it arrives and drawn at most SLICE
// characters a frame, into boxes of about CHUNK characters (class out-chunk, inline-block): the
// browser then lays out the newest box, not the whole console, so each frame stays short whether the
// text is 200,000 short lines or one long line (bench/flood.py measures it).
const SLICE = 8_000;
const CHUNK = 4_000;

export class Output {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.root.replaceChildren();
    this.queue = [];
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.size = 0;
    this.truncated = false;
    this.chunk = null; // the box being filled, its length, and whether it ends with a line break
    this.chunkSize = 0;
    this.chunkEndsLine = false;
    this.root.dataset.empty = "true";
  }

  /** Queue text; it is drawn on the next frames, so many small writes cost one layout. */
  write(text, kind = "stdout") {
    if (this.truncated) return;
    if (this.size + text.length > MAX_OUTPUT) {
      text = text.slice(0, Math.max(0, MAX_OUTPUT - this.size));
      this.truncated = true;
    }
    this.size += text.length;
    this.enqueue(text, kind);
    if (this.truncated) this.enqueue("\n… output cut here: more than 200,000 characters\n", "note");
  }

  /** A line from the page itself (a stop, a crash): after everything written before it, at once
   * when nothing is waiting to be drawn. */
  note(text) {
    const waiting = this.queue.length > 0;
    this.enqueue(text + "\n", "note");
    if (!waiting) {
      cancelAnimationFrame(this.frame);
      this.draw();
    }
  }

  enqueue(text, kind) {
    const last = this.queue[this.queue.length - 1];
    if (last && last.kind === kind && kind !== "note") last.text += text;
    else this.queue.push({ kind, text });
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  draw() {
    this.frame = 0;
    const root = this.root;
    // Follow the end only if the reader is there: scrolling up to read stops the following.
    const following = root.scrollHeight - root.scrollTop - root.clientHeight < 8;
    let budget = SLICE;
    while (budget > 0 && this.queue.length) {
      const item = this.queue[0];
      const text = item.text.length > budget ? item.text.slice(0, budget) : item.text;
      if (text.length === item.text.length) this.queue.shift();
      else item.text = item.text.slice(text.length);
      this.append(text, item.kind);
      budget -= text.length;
    }
    delete root.dataset.empty;
    if (following) root.scrollTop = root.scrollHeight;
    if (this.queue.length) this.frame = requestAnimationFrame(() => this.draw());
  }

  /** Into the boxes: a new box once the last one holds CHUNK characters and ends a line, or holds
   * twice that (a line that long is then continued in the next box). */
  append(text, kind) {
    while (text) {
      if (!this.chunk || (this.chunkSize >= CHUNK && this.chunkEndsLine) || this.chunkSize >= 2 * CHUNK) {
        this.chunk = el("span", { class: "out-chunk" });
        this.root.append(this.chunk);
        this.chunkSize = 0;
      }
      let end = Math.min(text.length, 2 * CHUNK - this.chunkSize);
      if (this.chunkSize + end > CHUNK) {
        const line = text.indexOf("\n", Math.max(0, CHUNK - this.chunkSize - 1));
        if (line !== -1) end = Math.min(end, line + 1);
      }
      const piece = end === text.length ? text : text.slice(0, end);
      text = end === text.length ? "" : text.slice(end);
      const last = this.chunk.lastElementChild;
      if (last && last.dataset.kind === kind && kind !== "note") last.append(piece);
      else this.chunk.append(el("span", { class: `out-${kind}`, "data-kind": kind }, piece));
      this.chunkSize += piece.length;
      this.chunkEndsLine = piece.endsWith("\n");
    }
  }
}

// --- checks ------------------------------------------------------------------------------------
// A check passed (✓: its claim was evaluated and held), failed (✗), or was not checked (–: a
// claim that holds only for the prepared scripted replies, not evaluated with a live model; its
// message says what the model did). A looplab without `status` reports only `ok`.

const SHOWN = {
  passed: { mark: "✓", css: "pass", say: "passed: " },
  failed: { mark: "✗", css: "fail", say: "failed: " },
  "not checked": { mark: "–", css: "unchecked", say: "not checked: " },
};

/** "passed", "failed" or "not checked". */
export function checkStatus(check) {
  return check.status || (check.ok ? "passed" : "failed");
}

/** How many checks passed, failed and were not checked, and how many were checked at all. */
export function tally(checks) {
  const count = (status) => checks.filter((c) => checkStatus(c) === status).length;
  const passed = count("passed"), failed = count("failed"), unchecked = count("not checked");
  return { passed, failed, unchecked, checked: checks.length - unchecked };
}

/** "7 of 7 checks passed · 2 not checked with a live model" */
export function describeTally({ passed, unchecked, checked }) {
  return `${passed} of ${checked} checks passed${unchecked ? ` · ${unchecked} not checked with a live model` : ""}`;
}

export function showChecks(root, checks, { pending = false } = {}) {
  root.replaceChildren();
  if (!checks.length) {
    root.append(el("p", { class: "muted" }, pending ? "Run the lesson to check your code." : "No checks ran."));
    return;
  }
  const list = el("ul", { class: "checklist" });
  for (const check of checks) {
    const status = checkStatus(check);
    const shown = pending ? { mark: "•", css: "pending", say: "not run: " } : SHOWN[status] || SHOWN.failed;
    list.append(el("li", { class: `check check-${shown.css}`, "data-ok": pending ? "" : String(check.ok), "data-status": pending ? "" : status },
      el("span", { class: "check-mark", "aria-hidden": "true" }, shown.mark),
      el("span", { class: "sr-only" }, shown.say),
      el("span", { class: "check-name" }, check.name),
      !pending && status === "not checked" ? el("span", { class: "check-unchecked-label" }, "not checked") : null,
      check.message && status !== "passed" ? el("span", { class: "check-message" }, check.message) : null));
  }
  const counts = tally(checks);
  if (!pending) root.append(el("p", { class: counts.failed ? "summary fail" : "summary pass" }, describeTally(counts)));
  root.prepend(list);
}

// --- trace -------------------------------------------------------------------------------------

const LABELS = {
  run_start: "run starts",
  model_call: "model call",
  model_reply: "model reply",
  tool_call: "tool call",
  tool_result: "tool result",
  policy_block: "gate",
  approval_needed: "approval",
  stop: "stop",
};

export class Trace {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.root.replaceChildren();
    this.list = el("ol", { class: "trace" });
    this.root.append(this.list);
    this.root.dataset.empty = "true";
  }

  add(event) {
    delete this.root.dataset.empty;
    const kind = event.type;
    const item = el("li", { class: `ev ev-${kind}`, "data-type": kind });
    const step = event.step !== undefined ? el("span", { class: "ev-step" }, `step ${event.step}`) : null;
    item.append(el("span", { class: "ev-kind" }, LABELS[kind] || kind));
    // A named run (run_agent(..., name=...)) tags its events, so nested agents stay apart.
    if (event.agent) {
      item.dataset.agent = event.agent;
      item.append(el("span", { class: "ev-agent" }, event.agent));
    }
    if (step) item.append(step);
    const body = this.describe(event);
    if (body) item.append(body);
    this.list.append(item);
    this.root.scrollTop = this.root.scrollHeight;
  }

  describe(e) {
    switch (e.type) {
      case "run_start":
        return el("span", { class: "ev-text" }, `“${shorten(e.task, 200)}” · tools: ${(e.tools || []).join(", ") || "none"} · at most ${e.max_steps ?? "?"} steps`);
      case "model_call":
        return el("span", { class: "ev-text" }, `${e.messages ?? "?"} messages${e.context_tokens !== undefined ? ` (${e.context_tokens} tokens)` : ""}, ${e.tools ?? 0} tools`);
      case "model_reply": {
        const parts = [`${Math.round(e.ms || 0)} ms`];
        if (e.usage) parts.push(usageText(e.usage, true));
        if (e.ok === false) parts.push(`unusable: ${e.content}`);
        else if (e.tool_calls) parts.push(`asks for ${e.tool_calls} tool call${e.tool_calls === 1 ? "" : "s"}`);
        else parts.push(shorten(e.content, 400));
        const box = el("span", { class: "ev-text" }, parts.join(" · "));
        const cut = e.cut && el("span", { class: "ev-cut", "data-cut": e.cut }, e.cut === "length" ? "cut short by the token limit (Max reply tokens in Settings)" : `cut short: ${e.cut}`);
        const thought = e.thought && el("span", { class: "ev-thought" }, `thought: ${shorten(e.thought, 400)}`);
        return thought || cut ? el("span", {}, box, ...[cut, thought].filter(Boolean)) : box;
      }
      case "tool_call":
        return el("span", { class: "ev-text" }, el("code", {}, e.tool), " ", el("code", { class: "ev-args" }, shorten(typeof e.arguments === "string" ? e.arguments : JSON.stringify(e.arguments), 300)));
      case "tool_result": {
        const text = String(e.result ?? "");
        const head = el("span", { class: e.ok ? "ev-ok" : "ev-bad" }, e.ok ? "ok" : "error");
        if (text.length <= 200) return el("span", { class: "ev-text" }, head, " ", el("code", {}, e.tool), " ", text);
        return el("details", { class: "ev-text" }, el("summary", {}, head, " ", el("code", {}, e.tool), " ", shorten(text, 120)), el("pre", {}, text));
      }
      case "policy_block":
        return el("span", { class: "ev-text ev-bad" }, `${e.gate} gate refused: ${e.reason}`);
      case "approval_needed":
        return el("span", { class: "ev-text" }, el("code", {}, e.tool), e.approved ? " approved" : " not approved");
      case "stop": {
        const spent = e.usage && e.usage.total ? ` · ${usageText(e.usage, false)}` : "";
        const text = `${e.stopped} after ${e.steps} step${e.steps === 1 ? "" : "s"}${e.detail ? ": " + e.detail : ""}${spent}`;
        return el("span", { class: `ev-text ${e.stopped === "final" ? "ev-ok" : "ev-bad"}` }, text, e.answer ? el("span", { class: "ev-answer" }, `answer: ${shorten(e.answer, 400)}`) : null);
      }
      default:
        return el("code", { class: "ev-text" }, shorten(JSON.stringify(e), 300));
    }
  }
}

/** A call's or a run's usage: "57 tokens (50 in, 7 out)"; "~57 tokens (estimate…)" when no server said so. */
function usageText(u, split) {
  const about = u.estimated ? "~" : "";
  const detail = split ? ` (${u.estimated ? "estimate: " : ""}${u.prompt} in, ${u.completion} out)` : u.estimated ? " (estimate)" : "";
  const cost = typeof u.cost === "number" ? ` · cost ${u.cost.toPrecision(2)}` : "";
  return `${about}${u.total} tokens${detail}${cost}`;
}

// --- context -----------------------------------------------------------------------------------

/** What the model saw on its last call: the model_call event's `context`. */
export class Context {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.root.replaceChildren(el("p", { class: "muted" }, "The messages the model is sent appear here when a lesson calls a model."));
  }

  add(event) {
    if (event.type === "model_call") this.show(event);
  }

  show(call) {
    const messages = call.context || [];
    const tokens = call.context_tokens !== undefined ? ` (${call.context_tokens} tokens)` : "";
    const head = el("p", { class: "ctx-head" }, `Step ${call.step ?? "?"}: `,
      `${messages.length} messages${tokens} and ${call.tools ?? 0} tools sent to the model`);
    const list = el("ol", { class: "ctx" });
    for (const message of messages) list.append(this.message(message));
    this.root.replaceChildren(head, list);
  }

  message(m) {
    const role = m.role || "?";
    const item = el("li", { class: `msg msg-${role}` }, el("span", { class: "msg-role" }, role));
    if (m.tokens !== undefined) item.append(el("span", { class: "msg-tokens" }, `${m.tokens} tokens`));
    if (m.tool_call_id) item.append(el("span", { class: "msg-id" }, `answers ${m.tool_call_id}`));
    if (m.content) item.append(el("pre", { class: "msg-content" }, typeof m.content === "string" ? m.content : pretty(m.content)));
    for (const call of m.tool_calls || []) {
      const fn = call.function || {};
      item.append(el("pre", { class: "msg-call" }, `${call.id}: ${fn.name}(${shorten(typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments), 400)})`));
    }
    return item;
  }
}
