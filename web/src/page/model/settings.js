// The live model's settings: presets, the dialog, and Test connection (one request, explained).
// The key lives in sessionStorage unless the learner ticks "remember on this device"; it never
// reaches Python: the worker holds it (transport.js) and Python sees a placeholder in LLM_API_KEY.
// It is never put in the page's DOM.

import { loadSettings, saveSettings, loadKey, saveKey } from "../ui/storage.js";
import { redact } from "../../shared/redact.js";
import { carriesKey } from "../../shared/keyscope.js";
import { CAN_SUSPEND, NO_STREAMING } from "../../shared/gaps.js";

export const PRESETS = {
  openai: { label: "OpenAI", baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini", api: "chat" },
  ollama: { label: "Ollama on this computer", baseUrl: "http://localhost:11434/v1", model: "llama3.2", api: "chat" },
  proxy: {
    label: "LiteLLM or another OpenAI-compatible proxy",
    baseUrl: "http://localhost:4000/v1",
    model: "gpt-4o-mini",
    api: "chat",
  },
  custom: { label: "Custom endpoint", baseUrl: "", model: "", api: "chat" },
};

// maxTokens: the most tokens one reply may have (LLM_MAX_TOKENS); a rambling model stops there.
// stream: replies stream, their text shown as it is written (LLM_STREAM; the local model's tokens too).
export const MODES = ["scripted", "local", "live"];

const DEFAULTS = {
  mode: "scripted",
  preset: "openai",
  baseUrl: PRESETS.openai.baseUrl,
  model: PRESETS.openai.model,
  api: "chat",
  maxTokens: 512,
  remember: false,
  temperature: 0,
  localUrl: "",
  stream: true,
};

export class Settings {
  constructor() {
    this.values = loadSettings(DEFAULTS);
    this.apiKey = loadKey();
  }

  get live() {
    return this.values.mode === "live";
  }

  /** scripted, local or live */
  get mode() {
    return MODES.includes(this.values.mode) ? this.values.mode : "scripted";
  }

  /** Whether replies stream (Settings → Stream replies; on unless turned off). */
  get stream() {
    return this.values.stream !== false;
  }

  /** The local model's temperature: a number from 0 (greedy) to 2. */
  get temperature() {
    const t = Number(this.values.temperature);
    return Number.isFinite(t) ? Math.min(2, Math.max(0, t)) : 0;
  }

  setMode(mode) {
    this.values.mode = mode;
    saveSettings(this.values);
  }

  update(values, apiKey) {
    this.values = { ...this.values, ...values };
    this.apiKey = apiKey;
    saveSettings(this.values);
    saveKey(apiKey, this.values.remember);
  }

  /** The run's environment: what Python reads from os.environ (LLM_API_KEY is the worker's
   * placeholder); `mode` overrides the toggle (a lesson whose code came from elsewhere). */
  env(mode = this.mode) {
    if (mode !== "live") return { LOOPLAB_MODEL: mode };
    return {
      LOOPLAB_MODEL: "live",
      LLM_BASE_URL: this.values.baseUrl,
      LLM_MODEL: this.values.model,
      LLM_API: this.values.api,
      LLM_MAX_TOKENS: String(this.values.maxTokens ?? DEFAULTS.maxTokens),
      LLM_STREAM: this.stream ? "1" : "0",
    };
  }

  /** What a new Python worker is given: the endpoint it may reach and the key it holds. */
  endpoint() {
    return { baseUrl: this.values.baseUrl || "", key: this.apiKey || "" };
  }

  /** Why live mode cannot run yet, or null. */
  problem() {
    if (!this.values.baseUrl) return "set the endpoint's base URL in Settings";
    if (!/^https?:\/\//.test(this.values.baseUrl)) return "the base URL must start with http:// or https://";
    if (!this.values.model) return "set the model name in Settings";
    if (!/^[1-9][0-9]*$/.test(String(this.values.maxTokens ?? DEFAULTS.maxTokens)))
      return "max reply tokens in Settings must be a whole number, at least 1";
    return null;
  }
}

// --- Test connection ---------------------------------------------------------------------------

/** Ask the service worker whether anything answers at `url` at all (a no-cors request). */
function probe(url) {
  const controller = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (!controller) return Promise.resolve("unknown");
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve("unknown"), 5000);
    channel.port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(event.data.reachable === true ? "reachable" : event.data.reachable === false ? "unreachable" : "unknown");
    };
    controller.postMessage({ type: "probe", url }, [channel.port2]);
  });
}

function corsFix(origin) {
  return (
    `Allow this page's origin (${origin}) on the server: for Ollama start it with OLLAMA_ORIGINS=${origin}; ` +
    "for LiteLLM and most proxies set their CORS allowed origins; a server that cannot do that needs a small proxy in front that adds Access-Control-Allow-Origin."
  );
}

/**
 * One request to the endpoint, explained: {ok, outcome, message}.
 * outcome: works | key_refused | model_not_found | not_found | cors | unreachable | timeout | http_error | bad_settings
 */
export async function testConnection({ baseUrl, model, api }, apiKey, { timeoutMs = 20000 } = {}) {
  if (!/^https?:\/\//.test(baseUrl || ""))
    return {
      ok: false,
      outcome: "bad_settings",
      message: "The base URL must start with http:// or https://, e.g. http://localhost:11434/v1.",
    };
  if (!model)
    return {
      ok: false,
      outcome: "bad_settings",
      message: "Set a model name first (e.g. gpt-4o-mini, or llama3.2 for Ollama).",
    };
  const base = baseUrl.replace(/\/+$/, "");
  const responses = api === "responses";
  const url = base + (responses ? "/responses" : "/chat/completions");
  const body = responses
    ? { model, input: "Reply with the single word OK.", max_output_tokens: 16 }
    : { model, messages: [{ role: "user", content: "Reply with the single word OK." }], max_tokens: 8 };
  const headers = { "Content-Type": "application/json" };
  if (apiKey && carriesKey(baseUrl, url)) headers.Authorization = `Bearer ${apiKey}`; // the rule Python's requests follow
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const started = performance.now();
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: abort.signal,
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    clearTimeout(timer);
    if (abort.signal.aborted)
      return {
        ok: false,
        outcome: "timeout",
        message: `No answer from ${base} after ${Math.round(timeoutMs / 1000)} s. Is the server busy, or still loading the model?`,
      };
    const reach = await probe(base + "/models");
    const origin = location.origin;
    if (reach === "reachable") {
      return {
        ok: false,
        outcome: "cors",
        message: `The server at ${base} answered, but it refused requests from this page (CORS). ${corsFix(origin)}`,
      };
    }
    if (reach === "unreachable") {
      return {
        ok: false,
        outcome: "unreachable",
        message: `Nothing answered at ${base}. Check the base URL and that the server is running.`,
      };
    }
    return {
      ok: false,
      outcome: "cors",
      message: `No reply could be read from ${base}: either nothing answers there (check the URL and that the server runs), or the server refused requests from this page (CORS). ${corsFix(origin)}`,
    };
  }
  clearTimeout(timer);
  const ms = Math.round(performance.now() - started);
  let data = null;
  let text = "";
  try {
    text = await response.text();
    data = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  const detail = redact((data && data.error && (data.error.message || data.error)) || text.slice(0, 300), apiKey);
  if (response.ok) {
    let reply = "";
    if (data && Array.isArray(data.choices)) reply = data.choices[0]?.message?.content ?? "";
    else if (data && Array.isArray(data.output))
      reply = data.output
        .flatMap((item) => item.content || [])
        .map((part) => part.text || "")
        .join("");
    return {
      ok: true,
      outcome: "works",
      message: `Works: ${model} answered${reply ? ` “${redact(reply, apiKey).slice(0, 80)}”` : ""} in ${ms} ms.`,
    };
  }
  if (response.status === 401 || response.status === 403) {
    return {
      ok: false,
      outcome: "key_refused",
      message: `The endpoint refused the key (HTTP ${response.status}${detail ? ": " + detail : ""}). ${apiKey ? "Check the key in Settings (and that it belongs to this endpoint)." : "It needs an API key: enter one in Settings."}`,
    };
  }
  if (response.status === 404) {
    if (/model/i.test(detail))
      return {
        ok: false,
        outcome: "model_not_found",
        message: `The endpoint does not know the model “${model}” (HTTP 404: ${detail}). Check the model name.`,
      };
    return {
      ok: false,
      outcome: "not_found",
      message: `Nothing at ${url} (HTTP 404). Check the base URL: it usually ends in /v1.`,
    };
  }
  if (response.status === 429)
    return {
      ok: false,
      outcome: "http_error",
      message: `The endpoint is rate-limiting or out of quota (HTTP 429${detail ? ": " + detail : ""}). Wait, or check your plan.`,
    };
  return {
    ok: false,
    outcome: "http_error",
    message: `The endpoint answered HTTP ${response.status}${detail ? ": " + detail : ""}.`,
  };
}

// --- the dialog --------------------------------------------------------------------------------

export function setupDialog(dialog, settings, { onSave }) {
  const form = dialog.querySelector("form");
  const field = (name) => form.elements.namedItem(name);
  const result = dialog.querySelector("[data-role=test-result]");

  if (!CAN_SUSPEND) {
    const note = dialog.querySelector("[data-role=stream-note]");
    note.textContent = `Here ${NO_STREAMING}.`;
    note.hidden = false;
  }

  const presetSelect = field("preset");
  presetSelect.replaceChildren(...Object.entries(PRESETS).map(([id, p]) => new Option(p.label, id)));

  function fill() {
    const v = settings.values;
    presetSelect.value = v.preset in PRESETS ? v.preset : "custom";
    field("baseUrl").value = v.baseUrl || "";
    field("model").value = v.model || "";
    field("api").value = v.api || "chat";
    field("maxTokens").value = String(v.maxTokens ?? DEFAULTS.maxTokens);
    field("apiKey").value = settings.apiKey || ""; // a property, never an attribute: not in the DOM's HTML
    field("remember").checked = Boolean(v.remember);
    field("stream").checked = settings.stream;
    field("temperature").value = String(settings.temperature);
    field("localUrl").value = v.localUrl || "";
    result.textContent = "";
    result.dataset.outcome = "";
  }

  function read() {
    return {
      values: {
        preset: presetSelect.value,
        baseUrl: field("baseUrl").value.trim(),
        model: field("model").value.trim(),
        api: field("api").value,
        maxTokens: field("maxTokens").value.trim() || DEFAULTS.maxTokens,
        remember: field("remember").checked,
        stream: field("stream").checked,
        temperature: Number(field("temperature").value) || 0,
        localUrl: field("localUrl").value.trim(),
      },
      apiKey: field("apiKey").value.trim(),
    };
  }

  presetSelect.addEventListener("change", () => {
    const preset = PRESETS[presetSelect.value];
    if (presetSelect.value !== "custom") {
      field("baseUrl").value = preset.baseUrl;
      field("model").value = preset.model;
      field("api").value = preset.api;
    }
  });

  dialog.querySelector("[data-role=test]").addEventListener("click", async (event) => {
    const button = event.currentTarget;
    const { values, apiKey } = read();
    button.disabled = true;
    result.dataset.outcome = "testing";
    result.textContent = "Testing…";
    const outcome = await testConnection(values, apiKey);
    button.disabled = false;
    result.dataset.outcome = outcome.outcome;
    result.textContent = outcome.message;
  });

  // Cancel is not a submit button, so Enter in a field submits with Save (the form's default button).
  dialog.querySelector("[data-role=cancel]").addEventListener("click", () => dialog.close());

  form.addEventListener("submit", () => {
    const { values, apiKey } = read();
    settings.update(values, apiKey);
    onSave();
  });

  return {
    open() {
      fill();
      dialog.showModal();
    },
  };
}
