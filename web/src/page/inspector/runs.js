// Runs and their steps, built from looplab's events (py/looplab/trace.py) as they arrive. No DOM:
// the inspector draws what this holds, the exports write it out, and Node runs it in the tests.
//
// A run is everything one run_agent call emitted (events carry its number as `run`). A run that
// starts while another is open (an agent called as another's tool) is nested: its `parent` is
// the open run, and the parent's step at that moment lists it in `nested`.

/** One run: its events, its steps (1..N) and how it ended. `id` is its key in the book; `number`
 * the run number its events carry (an imported file's numbers may repeat this page's). */
function newRun(id, number, start, parent) {
  return {
    id,
    number,
    agent: start?.agent || null,
    task: start?.task ?? "",
    tools: start?.tools || [],
    maxSteps: start?.max_steps ?? null,
    parent: parent ? parent.id : null,
    calledBy: null, // the parent's tool call that started this run
    depth: parent ? parent.depth + 1 : 0,
    startedAt: null, // wall-clock ms when run_start arrived (for the OpenTelemetry export)
    events: [],
    steps: [],
    blocked: null, // a policy_block before any step (the input gate)
    stop: null,
    forkOf: null, // {run, step} when this run is a fork
    firstDifference: null,
    source: "live", // "live" (this page's last runs), "fork" or "imported"
  };
}

function newStep(n) {
  return { n, call: null, reply: null, tools: [], blocks: [], nested: [] };
}

export class RunBook {
  constructor() {
    this.clear();
  }

  clear() {
    this.runs = []; // in start order
    this.byId = new Map();
    this.open = []; // runs started and not stopped, innermost last
    this.events = []; // every event, in the order it arrived
  }

  /** Add one event (`prefix` keeps an imported file's run numbers apart); returns its run. */
  add(event, { source = "live", at = Date.now(), prefix = "" } = {}) {
    const id = prefix + (event.run ?? 0);
    let run = this.byId.get(id);
    this.events.push({ id, event });
    if (!run) {
      const parent = this.open[this.open.length - 1] || null;
      run = newRun(id, event.run ?? 0, event.type === "run_start" ? event : null, parent);
      run.source = source;
      run.startedAt = at - Math.round((event.t || 0) * 1000);
      this.runs.push(run);
      this.byId.set(id, run);
      if (parent) {
        const step = parent.steps[parent.steps.length - 1];
        if (step) step.nested.push(id);
        const tool = step && step.tools[step.tools.length - 1]; // the tool call running it
        run.calledBy = tool && tool.call ? tool.call.call_id : null;
      }
      this.open.push(run);
    }
    run.events.push(event);
    place(run, event);
    if (event.type === "stop") this.open = this.open.filter((r) => r !== run);
    return run;
  }

  /** Add a run file's runs (checked by readRunFile) beside those here, `prefix` keeping their
   * numbers apart; returns the runs added and the file's top run. */
  importFile(data, prefix) {
    readRunFile(data);
    const meta = new Map((data.runs || []).map((r) => [r.run, r]));
    const added = [];
    for (const event of data.events) {
      const run = this.add(event, { source: "imported", prefix, at: Date.now() });
      if (!added.includes(run)) added.push(run);
    }
    this.open = [];
    for (const run of added) {
      const m = meta.get(run.number);
      if (!m) continue;
      if (typeof m.startedAt === "number") run.startedAt = m.startedAt;
      run.forkOf = m.forkOf && typeof m.forkOf === "object" ? { ...m.forkOf, run: prefix + m.forkOf.run } : null;
      if (run.forkOf && !this.byId.has(run.forkOf.run)) run.forkOf = null;
      run.firstDifference = m.firstDifference ?? null;
      run.lesson = data.lesson ?? null;
    }
    return { added, top: added.find((r) => r.number === data.run) || added[0] };
  }

  /** A run and the runs nested in it (at any depth), in start order. */
  family(run) {
    const ids = new Set([run.id]);
    for (const r of this.runs) if (r.parent !== null && ids.has(r.parent)) ids.add(r.id);
    return this.runs.filter((r) => ids.has(r.id));
  }
}

function stepOf(run, n) {
  let step = run.steps[run.steps.length - 1];
  if (!step || step.n !== n) {
    step = run.steps.find((s) => s.n === n);
    if (!step) {
      step = newStep(n);
      run.steps.push(step);
    }
  }
  return step;
}

function place(run, e) {
  switch (e.type) {
    case "run_start":
      Object.assign(run, {
        agent: e.agent || null,
        task: e.task ?? "",
        tools: e.tools || [],
        maxSteps: e.max_steps ?? null,
      });
      return;
    case "stop":
      run.stop = e;
      return;
    case "policy_block":
      if (!e.step) run.blocked = e;
      else stepOf(run, e.step).blocks.push(e);
      return;
    case "model_call":
      stepOf(run, e.step).call = e;
      return;
    case "model_reply":
      stepOf(run, e.step).reply = e;
      return;
    case "tool_call":
      stepOf(run, e.step).tools.push({ call: e, result: null, approval: null });
      return;
    case "approval_needed":
    case "tool_result": {
      const step = stepOf(run, e.step);
      const tool = step.tools.find((t) => t.call && t.call.call_id === e.call_id) || null;
      if (e.type === "approval_needed") {
        if (tool) tool.approval = e;
      } else if (tool) tool.result = e;
      else step.tools.push({ call: null, result: e, approval: null });
      return;
    }
    default:
      if (e.step !== undefined) stepOf(run, e.step); // an event kind this page does not know yet
  }
}

/** The usage a model reply reports, as {input, output} tokens (chat or Responses field names), or null. */
export function usageOf(reply) {
  const u = reply && reply.usage;
  if (!u || typeof u !== "object") return null;
  const input = u.input_tokens ?? u.prompt_tokens;
  const output = u.output_tokens ?? u.completion_tokens;
  if (typeof input !== "number" && typeof output !== "number") return null;
  return { input: input || 0, output: output || 0 };
}

/** The cost of a usage at prices per million tokens {input, output}; null without prices. */
export function costOf(usage, prices) {
  if (!usage || !prices || !(prices.input > 0 || prices.output > 0)) return null;
  return (usage.input * (prices.input || 0) + usage.output * (prices.output || 0)) / 1e6;
}

/** Tokens sent per role in a model call's context: {system: 12, user: 30, ...}. */
export function tokensByRole(call) {
  const out = {};
  const sizes = call.context_sizes || [];
  (call.context || []).forEach((m, i) => {
    const size = sizes[i] ?? m.tokens ?? 0;
    out[m.role || "?"] = (out[m.role || "?"] || 0) + size;
  });
  return out;
}

/** What a run's outcome is, in a line: "final after 2 steps: The sum is 5." */
export function outcome(run) {
  const stop = run.stop;
  if (!stop) return "still running";
  return `${stop.stopped} after ${stop.steps} step${stop.steps === 1 ? "" : "s"}${stop.answer ? `: ${stop.answer}` : stop.detail ? `: ${stop.detail}` : ""}`;
}

// --- the run file: export and import (lossless: the events as they came) ------------------------

export const RUN_FORMAT = "looplab-run";

/** A run and the runs nested in it, as the JSON document `export-run` downloads. */
export function exportRun(book, run, { lesson = null } = {}) {
  const family = book.family(run);
  const ids = new Set(family.map((r) => r.id));
  const forkOf = (f) => (f ? { run: book.byId.get(f.run)?.number ?? f.run, step: f.step } : null);
  const runs = family.map((r) => ({
    run: r.number,
    startedAt: r.startedAt,
    forkOf: forkOf(r.forkOf),
    firstDifference: r.firstDifference,
  }));
  const events = book.events.filter((e) => ids.has(e.id)).map((e) => e.event); // in the order they came
  return { format: RUN_FORMAT, version: 1, lesson, run: run.number, runs, events };
}

/** Read a run file: {runs, events} checked, or an Error that says what is wrong with it. */
export function readRunFile(data) {
  if (!data || typeof data !== "object" || data.format !== RUN_FORMAT) {
    throw new Error(`this file is not a Loop Lab run (it has no "format": "${RUN_FORMAT}")`);
  }
  if (data.version !== 1) throw new Error(`this run file is version ${data.version}; this page reads version 1`);
  if (
    !Array.isArray(data.events) ||
    !data.events.every((e) => e && typeof e === "object" && typeof e.type === "string")
  ) {
    throw new Error('this run file\'s "events" is not a list of events (each an object with a "type")');
  }
  if (!data.events.some((e) => e.type === "run_start"))
    throw new Error("this run file holds no run (no run_start event)");
  return data;
}
