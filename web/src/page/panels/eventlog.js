// The "Every event" log under the inspector: each event of the runs as one line, as it comes.

import { el } from "../ui/dom.js";
import { short } from "../ui/text.js";

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

export class EventLog {
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
        return el(
          "span",
          { class: "ev-text" },
          `“${short(e.task, 200)}” · tools: ${(e.tools || []).join(", ") || "none"} · at most ${e.max_steps ?? "?"} steps`,
        );
      case "model_call":
        return el(
          "span",
          { class: "ev-text" },
          `${e.messages ?? "?"} messages${e.context_tokens !== undefined ? ` (${e.context_tokens} tokens)` : ""}, ${e.tools ?? 0} tools`,
        );
      case "model_reply": {
        const parts = [`${Math.round(e.ms || 0)} ms`];
        if (e.usage) parts.push(usageText(e.usage, true));
        // the local engine's KV cache: how much of the prompt it had to read (models/local.py)
        if (e.prompt && Number.isInteger(e.prompt.evaluated))
          parts.push(`evaluated ${e.prompt.evaluated} of ${e.prompt.tokens} prompt tokens`);
        if (e.ok === false) parts.push(`unusable: ${e.content}`);
        else if (e.tool_calls) parts.push(`asks for ${e.tool_calls} tool call${e.tool_calls === 1 ? "" : "s"}`);
        else parts.push(short(e.content, 400));
        const box = el("span", { class: "ev-text" }, parts.join(" · "));
        const cut =
          e.cut &&
          el(
            "span",
            { class: "ev-cut", "data-cut": e.cut },
            e.cut === "length" ? "cut short by the token limit (Max reply tokens in Settings)" : `cut short: ${e.cut}`,
          );
        const thought = e.thought && el("span", { class: "ev-thought" }, `thought: ${short(e.thought, 400)}`);
        return thought || cut ? el("span", {}, box, ...[cut, thought].filter(Boolean)) : box;
      }
      case "tool_call":
        return el(
          "span",
          { class: "ev-text" },
          el("code", {}, e.tool),
          " ",
          el(
            "code",
            { class: "ev-args" },
            short(typeof e.arguments === "string" ? e.arguments : JSON.stringify(e.arguments), 300),
          ),
        );
      case "tool_result": {
        const text = String(e.result ?? "");
        const head = el("span", { class: e.ok ? "ev-ok" : "ev-bad" }, e.ok ? "ok" : "error");
        if (text.length <= 200) return el("span", { class: "ev-text" }, head, " ", el("code", {}, e.tool), " ", text);
        return el(
          "details",
          { class: "ev-text" },
          el("summary", {}, head, " ", el("code", {}, e.tool), " ", short(text, 120)),
          el("pre", {}, text),
        );
      }
      case "policy_block":
        return el("span", { class: "ev-text ev-bad" }, `${e.gate} gate refused: ${e.reason}`);
      case "approval_needed":
        return el("span", { class: "ev-text" }, el("code", {}, e.tool), e.approved ? " approved" : " not approved");
      case "stop": {
        const spent = e.usage && e.usage.total ? ` · ${usageText(e.usage, false)}` : "";
        const text = `${e.stopped} after ${e.steps} step${e.steps === 1 ? "" : "s"}${e.detail ? ": " + e.detail : ""}${spent}`;
        return el(
          "span",
          { class: `ev-text ${e.stopped === "final" ? "ev-ok" : "ev-bad"}` },
          text,
          e.answer ? el("span", { class: "ev-answer" }, `answer: ${short(e.answer, 400)}`) : null,
        );
      }
      default:
        return el("code", { class: "ev-text" }, short(JSON.stringify(e), 300));
    }
  }
}

/** A call's or a run's usage: "57 tokens (50 in, 7 out)"; "~57 tokens (estimate…)" when no server said so. */
function usageText(u, split) {
  const about = u.estimated ? "~" : "";
  const detail = split
    ? ` (${u.estimated ? "estimate: " : ""}${u.prompt} in, ${u.completion} out)`
    : u.estimated
      ? " (estimate)"
      : "";
  const cost = typeof u.cost === "number" ? ` · cost ${u.cost.toPrecision(2)}` : "";
  return `${about}${u.total} tokens${detail}${cost}`;
}
