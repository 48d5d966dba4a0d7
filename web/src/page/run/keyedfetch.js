// A request with the learner's key that Python makes synchronously where it cannot wait for a fetch
// (no JavaScript Promise integration: Safari, Firefox before 153). The worker's only synchronous
// way out is XMLHttpRequest, and a synchronous XHR follows a redirect — keeping Authorization on
// the same origin — before anything can refuse it: the key would reach a path outside the
// endpoint's prefix. So the worker asks the page instead (an `ask` of kind "fetch", asking.js) and
// waits on the answer buffer; the page makes the request with fetch and follows no redirect. The
// worker's message holds no key: the page adds it here, from Settings, where Python never reaches.
//
// The page trusts nothing in the question: it answers only the run in progress, live, in a worker
// it gave the key to, for a URL in the key's scope (keyscope.js decides, here as in the worker);
// and it writes the key out of the answer (keymask.js) before the worker reads it.

import { base64Of, bytesOfBase64 } from "../../shared/asking.js";
import { keyedURL, parseEndpoint } from "../../shared/keyscope.js";
import { bytesOf, maskBytes, maskText } from "../../shared/keymask.js";
import { REDACTED } from "../../shared/redact.js";

// Headers a browser sets itself (as transport.js skips them).
const BROWSER_OWNED = new Set(["content-length", "host", "connection", "accept-encoding", "user-agent", "origin"]);

/** Python's headers (JSON text of an object of strings) without the ones the browser owns and
 * without Python's own Authorization; the key's goes in last. */
function headersWithKey(headersJson, key) {
  const given = typeof headersJson === "string" && headersJson ? JSON.parse(headersJson) : {};
  const headers = new Headers();
  for (const [name, value] of Object.entries(given && typeof given === "object" ? given : {})) {
    const lower = name.toLowerCase();
    if (typeof value !== "string" || BROWSER_OWNED.has(lower) || lower === "authorization") continue;
    headers.set(name, value);
  }
  headers.set("Authorization", "Bearer " + key);
  return headers;
}

/**
 * Why the page will not make this request with the key (null: it will). `run`: the run in progress
 * that asked ({live}), or null; `keyed`: the asking worker holds the key; `endpoint`: {baseUrl, key}.
 */
export function refusal(request, { run, blocking, keyed, endpoint }) {
  if (!run || !blocking) return "not asked by the run in progress";
  if (!run.live || !keyed || !endpoint.key) return "no live run with your key here";
  const url = request && typeof request.url === "string" ? request.url : "";
  if (keyedURL(parseEndpoint(endpoint.baseUrl), url) !== url) return "outside your endpoint's address";
  return null;
}

/**
 * Make the request `{method, url, headers (JSON text), body (text) | body64 (base64 bytes),
 * timeoutMs}` with the key; resolve what the worker's transport returns to Python: {status,
 * headers (raw text), body64} with the key masked out, or {error: "redirected" | "timeout" |
 * "blocked" | "refused", why?}. `signal` aborts it (the run ended, or Stop).
 */
export async function keyedFetch(request, { endpoint, signal }) {
  const key = endpoint.key;
  const controller = new AbortController();
  let late = false;
  const ms = Math.max(Number(request.timeoutMs) || 0, 0);
  const timer = ms
    ? setTimeout(() => {
        late = true;
        controller.abort();
      }, ms)
    : null;
  const abort = () => controller.abort();
  signal?.addEventListener("abort", abort);
  try {
    const response = await fetch(request.url, {
      method: typeof request.method === "string" ? request.method : "GET",
      headers: headersWithKey(request.headers, key),
      body: typeof request.body64 === "string" ? bytesOfBase64(request.body64) : (request.body ?? null),
      credentials: "omit",
      cache: "no-store",
      redirect: "manual", // a redirect comes back unfollowed, as "opaqueredirect": the key goes nowhere else
      signal: controller.signal,
    });
    // (a browser hands a redirect back as "opaqueredirect", status 0; Node as the 3xx itself)
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400))
      return { error: "redirected" };
    let headers = "";
    for (const [name, value] of response.headers) headers += `${name}: ${value}\r\n`;
    const body = new Uint8Array(await response.arrayBuffer());
    return {
      status: response.status,
      headers: maskText(headers, key, REDACTED),
      body64: base64Of(key ? maskBytes(body, bytesOf(key), bytesOf(REDACTED)) : body),
    };
  } catch {
    return { error: late ? "timeout" : "blocked" };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", abort);
  }
}
