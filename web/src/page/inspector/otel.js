// A run as OpenTelemetry spans in OTLP JSON, named by the GenAI semantic conventions, so tracing
// tools (Phoenix, Langfuse, Jaeger ...) can open it: one `invoke_agent` span per run, a `chat`
// span per model call and an `execute_tool` span per tool call inside it; a nested run's span sits
// under the tool call that started it. Attributes: gen_ai.operation.name, gen_ai.agent.name,
// gen_ai.request.model, gen_ai.usage.input_tokens / output_tokens (the reply's usage when the model
// reported one; else the context's estimated size, marked looplab.tokens.estimated), gen_ai.tool.name,
// gen_ai.tool.call.id. Only what the events hold goes out (they are redacted of keys already).
// No DOM: Node runs this in the tests.

import { RunBook, usageOf } from "./runs.js";

const KIND = { INTERNAL: 1, CLIENT: 3 };
const STATUS = { UNSET: 0, OK: 1, ERROR: 2 };

function hex(bytes) {
  const buffer = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buffer);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}

function attribute(key, value) {
  if (typeof value === "number")
    return Number.isInteger(value)
      ? { key, value: { intValue: String(value) } }
      : { key, value: { doubleValue: value } };
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  return { key, value: { stringValue: String(value) } };
}

function attributes(object) {
  return Object.entries(object)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => attribute(k, v));
}

/** Nanoseconds since the epoch, as the decimal string OTLP JSON wants. */
function nanos(ms) {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

/**
 * OTLP JSON (ExportTraceServiceRequest) for runs from runs.js: `runs` is a run and the runs nested
 * in it (RunBook.family), parents before children. `model` names the model when the events do not.
 */
export function toOtlp(runs, { model = "", service = "looplab", version = "" } = {}) {
  const traceId = hex(16);
  const spans = [];
  const toolSpan = new Map(); // "<run id>/<call id>" -> the execute_tool span id, for nested runs
  const runSpan = new Map();
  for (const run of runs) {
    const base = run.startedAt ?? Date.now();
    const at = (t) => nanos(base + (t || 0) * 1000);
    const end = run.events.length ? run.events[run.events.length - 1].t : 0;
    const id = hex(8);
    runSpan.set(run.id, id);
    let parent = "";
    if (run.parent !== null) parent = toolSpan.get(`${run.parent}/${run.calledBy}`) || runSpan.get(run.parent) || "";
    const stop = run.stop || {};
    const name = run.agent || "agent";
    spans.push({
      traceId,
      spanId: id,
      parentSpanId: parent,
      name: `invoke_agent ${name}`,
      kind: KIND.INTERNAL,
      startTimeUnixNano: at(0),
      endTimeUnixNano: at(end),
      attributes: attributes({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": name,
        "gen_ai.provider.name": "looplab",
        "looplab.task": run.task,
        "looplab.stopped": stop.stopped,
        "looplab.steps": stop.steps,
        "looplab.answer": stop.answer,
        "looplab.run": run.number,
      }),
      status:
        stop.stopped === "final"
          ? { code: STATUS.OK }
          : stop.stopped
            ? { code: STATUS.ERROR, message: `${stop.stopped}${stop.detail ? ": " + stop.detail : ""}` }
            : { code: STATUS.UNSET },
    });
    for (const step of run.steps) {
      const call = step.call || {};
      const reply = step.reply || {};
      const usage = usageOf(reply);
      const chatModel = reply.model || (reply.message && reply.message.model) || model || "scripted";
      const chatStart = call.t ?? reply.t ?? 0;
      const chatEnd = reply.t ?? chatStart;
      spans.push({
        traceId,
        spanId: hex(8),
        parentSpanId: id,
        name: `chat ${chatModel}`,
        kind: KIND.CLIENT,
        startTimeUnixNano: at(chatStart),
        endTimeUnixNano: at(chatEnd),
        attributes: attributes({
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": chatModel,
          "gen_ai.provider.name": "looplab",
          "gen_ai.usage.input_tokens": usage ? usage.input : call.context_tokens,
          "gen_ai.usage.output_tokens": usage ? usage.output : undefined,
          "looplab.tokens.estimated": usage ? undefined : call.context_tokens !== undefined,
          "looplab.step": step.n,
          "looplab.messages": call.messages,
          "gen_ai.response.finish_reasons": reply.tool_calls ? "tool_calls" : reply.ok === false ? "error" : "stop",
        }),
        status:
          reply.ok === false
            ? { code: STATUS.ERROR, message: String(reply.content || "unusable reply") }
            : { code: STATUS.UNSET },
      });
      for (const tool of step.tools) {
        const c = tool.call || {};
        const r = tool.result || {};
        const spanId = hex(8);
        if (c.call_id) toolSpan.set(`${run.id}/${c.call_id}`, spanId);
        const started = c.t ?? r.t ?? chatEnd;
        spans.push({
          traceId,
          spanId,
          parentSpanId: id,
          name: `execute_tool ${c.tool || r.tool || "?"}`,
          kind: KIND.INTERNAL,
          startTimeUnixNano: at(started),
          endTimeUnixNano: at(r.t ?? started),
          attributes: attributes({
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": c.tool || r.tool,
            "gen_ai.tool.call.id": c.call_id || r.call_id,
            "gen_ai.tool.type": "function",
            "looplab.step": step.n,
            "looplab.tool.arguments": c.arguments,
            "looplab.tool.result": r.result,
            "looplab.approved": tool.approval ? tool.approval.approved : undefined,
          }),
          status:
            r.ok === false
              ? { code: STATUS.ERROR, message: String(r.result || "").slice(0, 200) }
              : { code: STATUS.UNSET },
        });
      }
    }
  }
  return {
    resourceSpans: [
      {
        resource: {
          attributes: attributes({
            "service.name": service,
            "telemetry.sdk.name": "looplab",
            "telemetry.sdk.language": "webjs",
          }),
        },
        scopeSpans: [{ scope: { name: "looplab", version }, spans }],
      },
    ],
  };
}

/** OTLP JSON for plain events (a run and the runs nested in it, in the order they came). */
export function eventsToOtlp(events, options = {}) {
  const book = new RunBook();
  events.forEach((event) => book.add(event, { at: options.at ?? 1_700_000_000_000 }));
  const top = book.runs.find((r) => r.parent === null);
  return top ? toOtlp(book.family(top), options) : toOtlp([], options);
}
