// One step of a run drawn as elements, with no state of its own: a message the model was sent (the
// Context panel's list and the inspector's), the context a call sent, the step's tokens and cost,
// the model's reply, a tool's call and result. The inspector and the Context panel draw with these.

import { el } from "../ui/dom.js";
import { costOf, tokensByRole, usageOf } from "./runs.js";
import { short, pretty, plural } from "../ui/text.js";

/**
 * One message as a list item: its role, size and the call it answers; `brief` (the inspector's
 * list) shows one cut line, else its whole content and every tool call it asks for.
 */
export function messageItem(m, { size = m.tokens, brief = false } = {}) {
  const role = m.role || "?";
  const item = el("li", { class: `msg msg-${role}` }, el("span", { class: "msg-role" }, role));
  if (size !== undefined) item.append(el("span", { class: "msg-tokens" }, `${size} tokens`));
  if (m.tool_call_id) item.append(el("span", { class: "msg-id" }, `answers ${m.tool_call_id}`));
  const calls = m.tool_calls || [];
  const args = (fn) => (typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments));
  if (brief) {
    const text = typeof m.content === "string" ? m.content : m.content ? JSON.stringify(m.content) : "";
    const asks = calls.map((c) => `${c.function?.name}(${short(c.function?.arguments, 120)})`).join(", ");
    item.append(el("span", { class: "insp-msg-text" }, short(text || asks, 240)));
    return item;
  }
  if (m.content)
    item.append(el("pre", { class: "msg-content" }, typeof m.content === "string" ? m.content : pretty(m.content, 1)));
  for (const call of calls) {
    const fn = call.function || {};
    item.append(el("pre", { class: "msg-call" }, `${call.id}: ${fn.name}(${short(args(fn), 400)})`));
  }
  return item;
}

/** The step's tokens (estimated and as the server reported them), its cost at `prices`, the model's time. */
export function tokensLine(step, prices) {
  const call = step.call || {};
  const parts = [];
  if (call.context_tokens !== undefined) parts.push(`sent ${call.context_tokens} tokens (estimated)`);
  const usage = usageOf(step.reply);
  if (usage) {
    parts.push(`usage: ${usage.input} in, ${usage.output} out`);
    const cost = costOf(usage, prices);
    parts.push(cost === null ? "no price set (Settings)" : `cost $${cost.toFixed(6)}`);
  }
  if (step.reply && step.reply.ms !== undefined) parts.push(`model ${Math.round(step.reply.ms)} ms`);
  return el("p", { class: "insp-tokens" }, parts.join(" · "));
}

/** What a model call sent, folded: its messages, tokens per role, what the memory window left out. */
export function contextSent(call) {
  const messages = call.context || [];
  const sizes = call.context_sizes || [];
  const roles = Object.entries(tokensByRole(call))
    .map(([role, tokens]) => `${role} ${tokens}`)
    .join(" · ");
  const left = call.left_out;
  const summary = el(
    "summary",
    {},
    `Context sent: ${plural(messages.length, "message")}`,
    call.context_tokens !== undefined ? `, ${call.context_tokens} tokens` : "",
    roles ? ` — ${roles}` : "",
    left && left.messages
      ? el(
          "span",
          { class: "insp-left" },
          ` · left out by the memory window: ${plural(left.messages, "message")} (${left.tokens} tokens)`,
        )
      : "",
  );
  const list = el("ol", { class: "insp-ctx" });
  messages.forEach((m, i) => list.append(messageItem(m, { size: sizes[i] ?? m.tokens, brief: true })));
  return el("details", { class: "insp-context" }, summary, list);
}

/** The model's reply: its text, thought and tool calls, or why it was unusable. */
export function replyBox(step) {
  const reply = step.reply;
  if (!reply)
    return el(
      "p",
      { class: "muted" },
      step.call ? "The model has not answered yet (or its call failed: see the outcome)." : "",
    );
  if (reply.ok === false) return el("p", { class: "ev-bad" }, `Unusable reply: ${reply.content}`);
  const message = reply.message || { content: reply.content, thought: reply.thought };
  const box = el("div", { class: "insp-reply" }, el("h4", {}, "Reply"));
  if (message.thought || reply.thought)
    box.append(el("p", { class: "ev-thought" }, `thought: ${message.thought || reply.thought}`));
  if (message.content) box.append(el("pre", { class: "insp-text" }, message.content));
  for (const call of message.tool_calls || []) {
    box.append(
      el("pre", { class: "msg-call" }, `${call.id}: ${call.function?.name}(${pretty(call.function?.arguments)})`),
    );
  }
  if (!message.content && !(message.tool_calls || []).length && reply.tool_calls)
    box.append(el("p", {}, `asks for ${plural(reply.tool_calls, "tool call")}`));
  return box;
}

/** One tool of the step: its call, a person's approval, its result; `waiting`: it waits for a person now. */
export function toolBox({ call, result, approval }, { ended, waiting }) {
  const name = (call && call.tool) || (result && result.tool) || "?";
  const box = el(
    "div",
    { class: "insp-tool" },
    el("h4", {}, el("code", {}, name), call ? el("span", { class: "muted" }, ` ${call.call_id}`) : ""),
  );
  if (call) box.append(el("pre", { class: "insp-args" }, pretty(call.arguments)));
  if (approval)
    box.append(
      el(
        "p",
        { class: approval.approved ? "ev-ok" : "ev-bad" },
        approval.approved ? "approved by a person" : "not approved",
      ),
    );
  if (result) {
    box.append(
      el(
        "p",
        { class: result.ok ? "ev-ok" : "ev-bad" },
        `${result.ok ? "ok" : "error"} · ${Number(result.ms || 0).toFixed(1)} ms`,
      ),
      el("pre", { class: "insp-result" }, String(result.result ?? "")),
    );
  } else if (!waiting) {
    box.append(el("p", { class: "muted" }, ended ? "not run" : "running…"));
  }
  return box;
}
