// The local model's engine: llama.cpp compiled to WebAssembly (@wllama/wllama), bundled on its
// own (localengine.js) and imported by localmodel.js only when local mode is used. The model runs
// in wllama's worker, multi-threaded when the page is cross-origin isolated, on the GPU through
// WebGPU when the browser offers an adapter (else, or if that load fails, on the CPU); its wasm
// comes from this site (wllama/<version>/wllama.wasm, copied by scripts/build_site.py), never
// from a CDN. An engine without JSPI or Memory64 (WebKit, so Safari) cannot run that build: wllama
// then takes its compat build (Asyncify, 32-bit memory; slower), which the site serves too
// (wllama/<version>/compat/, from @wllama/wllama-compat), never wllama's CDN copy of it.
//
// The prompt is remembered: wllama 3 runs llama-server's own request loop, which keeps the KV
// cache of the last prompt in its slot and, with `cache_prompt`, evaluates only the tokens after
// the part a new request shares with it. One slot (n_parallel 1), so every step of a run and
// every turn of a chat finds the previous one's cache; each reply's timings say how many prompt
// tokens were evaluated and how many came from the cache.
//
// CSP: wllama starts its worker, and that worker its threads, from blob: URLs, and compiles
// WebAssembly: the page needs `worker-src 'self' blob:` and `script-src 'self' 'wasm-unsafe-eval'`.

import { CacheManager, Wllama } from "@wllama/wllama";
import wllamaPackage from "@wllama/wllama/package.json";
import { hasWebGPU } from "./gpuadapter.js";
import { withoutThought } from "./thought.js";
import { CAN_SUSPEND } from "../../shared/gaps.js";

export const VERSION = wllamaPackage.version;

/** Where this site serves wllama's wasm, relative to the page; and its compat build. */
export const WASM_PATH = `wllama/${VERSION}/wllama.wasm`;
const COMPAT = { worker: `wllama/${VERSION}/compat/wllama.js`, wasm: `wllama/${VERSION}/compat/wllama.wasm` };

const CONTEXT = 4096; // tokens: a lesson's whole run (tools, rules, a few steps) fits
const FIRST_TOKEN = "local-first-token"; // a performance mark at each reply's first token
const THINKING = { enable_thinking: false }; // Qwen3's chat template: answer without <think>…</think>

/**
 * wllama's own download cache, unused: the page loads the model from a Blob and keeps files itself
 * (localmodel.js). wllama's default cache needs the Origin Private File System and its constructor
 * throws without it ("No supported storage backend found": a Safari private window, a WebKit
 * automation session), so it gets this one, which keeps nothing and works everywhere.
 */
const KEEPS_NOTHING = {
  isSupported: () => true,
  read: async () => null,
  write: async () => {
    throw new Error("the local model's files are kept by the page, not by wllama");
  },
  getSize: async () => -1,
  list: async () => [],
  delete: async () => {},
};

/**
 * Threads for the engine when the page may share memory (`isolated`: visit.js): half the logical
 * cores (about the physical ones), but at least 2 where there are 2 — halving a 2-core machine's
 * count gave one thread and left a core idle (bench/local_model.py). Up to 8.
 */
export function threadCount(isolated) {
  const cores = navigator.hardwareConcurrency || 1;
  if (!isolated || cores < 2) return 1;
  return Math.max(2, Math.min(8, Math.floor(cores / 2)));
}

/**
 * Load a GGUF model (a Blob or File) into a new engine. Resolves with an Engine, or rejects with an
 * Error whose message says what is wrong with the file (llama.cpp's own words included). `visit`:
 * {isolated, gpu} (visit.js): whether threads share memory, and which WebGPU adapters may serve.
 */
export async function loadEngine(
  blob,
  { name = "model.gguf", visit = { isolated: false, gpu: "real" }, threads = threadCount(visit.isolated), gpu } = {},
) {
  const started = performance.now();
  const tryGpu = gpu ?? (await hasWebGPU(visit.gpu === "any"));
  let opened = null;
  if (tryGpu) {
    // A GPU that fails to load the model (an adapter with too little memory, a driver bug) costs
    // one try: the CPU load below still runs, and the status line says which one is in use.
    opened = await open(blob, name, threads, true).catch(() => null);
  }
  opened ||= await open(blob, name, threads, false);
  const cpuBecause = opened.gpu
    ? null
    : tryGpu
      ? "the GPU could not load it"
      : gpu === false
        ? "as asked"
        : navigator.gpu
          ? "no WebGPU adapter on real hardware here"
          : "this browser has no WebGPU";
  return new Engine(opened, {
    name,
    size: blob.size,
    loadMs: performance.now() - started,
    gpu: opened.gpu,
    cpuBecause,
    compat: usesCompat(),
  });
}

/** Whether wllama runs its compat build here: it does where JSPI or Memory64 is missing (WebKit),
 * except on Firefox (its "safari" mode, which setCompat above keeps). */
function usesCompat() {
  if (/Firefox\//.test(navigator.userAgent)) return false;
  let memory64 = true;
  try {
    new WebAssembly.Memory({ address: "i64", initial: 1n });
  } catch {
    memory64 = false;
  }
  return !CAN_SUSPEND || !memory64;
}

async function open(blob, name, threads, gpu) {
  const problems = []; // llama.cpp's error lines while loading: the reason a load failed
  const keep = (...args) => {
    const text = args.map(String).join(" ");
    if (/error/i.test(text)) problems.push(text);
  };
  const wllama = new Wllama(
    { default: new URL(WASM_PATH, document.baseURI).href },
    {
      logger: { debug() {}, log() {}, warn: keep, error: keep },
      allowOffline: true,
      cacheManager: new CacheManager([KEEPS_NOTHING]),
    },
  );
  // wllama uses it only where the engine lacks JSPI or Memory64; never on Firefox ("safari" mode)
  wllama.setCompat({
    worker: new URL(COMPAT.worker, document.baseURI).href,
    wasm: new URL(COMPAT.wasm, document.baseURI).href,
  });
  const options = { n_ctx: CONTEXT, n_threads: threads, n_parallel: 1, jinja: true };
  try {
    // n_gpu_layers 0 keeps wllama's worker off WebGPU entirely; left out, every layer goes to the GPU.
    // flash_attn off on the CPU: llama.cpp's CPU flash attention rounds a prompt read in one batch
    // differently from one read in two (the cached prefix, then the new tokens), so with the KV
    // cache reused a greedy reply could differ from the reply without it (step 2 of lesson 15's
    // agent gave add(15, 5) instead of add(10, 5)). Without it, the wasm build's logits for a
    // cached prefix and for the whole prompt read at once were bit-equal at every step measured.
    await wllama.loadModel([blob], gpu ? options : { ...options, n_gpu_layers: 0, flash_attn: false });
  } catch (error) {
    await wllama.exit().catch(() => {});
    throw new Error(explain(name, problems, error));
  }
  const info = wllama.getLoadedContextInfo();
  if (!info.success) {
    await wllama.exit().catch(() => {});
    throw new Error(explain(name, problems));
  }
  wllama.gpu = gpu;
  return wllama;
}

function explain(name, problems, error) {
  const said =
    problems.find((line) => /error loading model/.test(line)) || problems[0] || (error && error.message) || "";
  const detail = said.replace(/^.*?error loading model:\s*/, "").trim();
  if (/not within the file bounds|incomplete|unexpectedly reached end|failed to read/i.test(detail)) {
    return `${name} could not be loaded: the file is incomplete or damaged (llama.cpp: ${detail}). Pick the whole file again.`;
  }
  return `${name} could not be loaded${detail ? ` (llama.cpp: ${detail})` : ""}.`;
}

export class Engine {
  constructor(wllama, { name, size, loadMs, gpu = false, cpuBecause = null, compat = false }) {
    this.wllama = wllama;
    const meta = wllama.getModelMetadata().meta || {};
    const template = wllama.getChatTemplate() || "";
    this.about = {
      file: name,
      model: meta["general.name"] || name.replace(/\.gguf$/i, ""),
      size,
      loadMs: Math.round(loadMs),
      threads: wllama.getNumThreads(),
      multithread: wllama.isMultithread(),
      gpu, // WebGPU holds the model's layers
      cpuBecause, // why not (when gpu is false), in a few words
      compat, // wllama's compat build: no JSPI or Memory64 here, slower
      // A chat template that renders `tools` lets llama.cpp write and parse native tool calls.
      native_tools: /\btools\b/.test(template),
    };
    this.last = null; // the timings of the latest reply
  }

  /**
   * One OpenAI-style chat request ({messages, tools?, tool_choice?, response_format?, max_tokens})
   * -> {message, finish_reason, timings, model}. Streamed, so the first token's time is measured
   * here in the page; `signal` aborts the generation (Stop); `onText(text)` hears each piece of
   * the reply's text as it is generated (the page shows it, runner.js passes it on as a delta).
   * The prompt's KV cache is reused (`cache_prompt`) unless the request says `cache_prompt: false`
   * (bench/local_model.py compares).
   */
  async chat(request, { temperature = 0, signal, onText = null } = {}) {
    const { op, ...body } = request; // eslint-disable-line no-unused-vars
    const started = performance.now();
    const message = { role: "assistant", content: "" };
    const calls = [];
    let reasoning = "";
    let firstTokenMs = null;
    let finish = null;
    let timings = {};
    await this.wllama.createChatCompletion({
      cache_prompt: true,
      ...body,
      chat_template_kwargs: { ...THINKING, ...(body.chat_template_kwargs || {}) },
      temperature, // 0: greedy, the same prompt gives the same reply
      stream: true,
      abortSignal: signal,
      onData: (chunk) => {
        const choice = (chunk.choices || [])[0] || {};
        const delta = choice.delta || {};
        if (firstTokenMs === null && (delta.content || delta.tool_calls)) {
          firstTokenMs = performance.now() - started;
          performance.mark(FIRST_TOKEN); // bench/streaming.py: from here to the screen
          if (performance.getEntriesByName(FIRST_TOKEN).length > 200) performance.clearMarks(FIRST_TOKEN);
        }
        if (delta.content) {
          message.content += delta.content;
          if (onText) onText(delta.content);
        }
        if (delta.reasoning_content) reasoning += delta.reasoning_content;
        for (const part of delta.tool_calls || []) {
          const index = part.index ?? calls.length;
          const call = (calls[index] ||= { id: "", type: "function", function: { name: "", arguments: "" } });
          if (part.id) call.id = part.id;
          if (part.function && part.function.name) call.function.name += part.function.name;
          if (part.function && part.function.arguments) call.function.arguments += part.function.arguments;
        }
        if (choice.finish_reason) finish = choice.finish_reason;
        if (chunk.timings) timings = chunk.timings;
      },
    });
    if (calls.length) {
      message.tool_calls = calls.filter(Boolean);
      if (!message.content) message.content = null;
    }
    const reply = withoutThought(message, reasoning);
    this.last = {
      prompt_tokens: timings.prompt_n ?? null, // evaluated for this reply
      prompt_cached: timings.cache_n ?? null, // taken from the KV cache of the previous prompt
      prompt_ms: timings.prompt_ms ?? null,
      tokens: timings.predicted_n ?? null,
      generate_ms: timings.predicted_ms ?? null,
      first_token_ms: firstTokenMs === null ? null : Math.round(firstTokenMs),
      total_ms: Math.round(performance.now() - started),
    };
    return { message: reply, finish_reason: finish, timings: this.last, model: this.about.model };
  }

  /** Reading and writing speed on a short prompt (tokens per second), shown in Settings. */
  async measure() {
    const answer = await this.chat({
      messages: [{ role: "user", content: "Count from one to twenty in words, separated by commas." }],
      max_tokens: 16,
      cache_prompt: false, // the whole prompt read, so the speed is reading speed
    });
    const t = answer.timings;
    return {
      read: t.prompt_ms ? (t.prompt_tokens / t.prompt_ms) * 1000 : null,
      write: t.generate_ms ? (t.tokens / t.generate_ms) * 1000 : null,
      first_token_ms: t.first_token_ms,
    };
  }

  /** Free the model: its worker ends. */
  async unload() {
    await this.wllama.exit().catch(() => {});
  }
}
