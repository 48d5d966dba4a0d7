// Which requests may carry the learner's API key: those whose origin (scheme, host and port) is
// the configured base URL's and whose path lies under its path. The worker's transport
// (transport.js) and Test connection (settings.js) ask this module, and nothing else decides.
//
// Python shares the worker's JavaScript realm and can replace any built-in (String.prototype,
// URL.prototype's getters, Reflect). The functions used here are taken at module evaluation —
// before Python exists — and called through the copies, so code that came from a link cannot
// make a look-alike URL match. No DOM: Node runs this in the tests (tests/site).

/** What Python sees in LLM_API_KEY when the page holds a key: where the key is, never the key. */
export const KEY_PLACEHOLDER = "held by the page";

const { apply } = Reflect;
const URLClass = URL;
const getter = (name) => Object.getOwnPropertyDescriptor(URL.prototype, name).get;
const PROTOCOL = getter("protocol");
const HOST = getter("host");
const PATH = getter("pathname");
const HREF = getter("href");
const USER = getter("username");
const PASSWORD = getter("password");
const { startsWith, slice, toLowerCase, indexOf } = String.prototype;

// What a path may not hold to carry the key: URL parsing leaves `%2f`, `%5c` and `%2e` encoded (and
// `;` parameters as they are), but a server or proxy that decodes and normalises paths would read
// `/v1/..%2Fadmin` or `/v1/..;/admin` as a path outside the prefix; `%25` could be decoded twice.
const UNSAFE = ["%2f", "%5c", "%2e", "%25", ";"];

/** Whether `path` (as URL parsing leaves it) could name another path on a server that decodes it. */
function ambiguous(path) {
  const lower = apply(toLowerCase, path, []);
  for (let i = 0; i < UNSAFE.length; i++) if (apply(indexOf, lower, [UNSAFE[i]]) >= 0) return true;
  return false;
}

/** An http(s) URL's parts as plain strings, or null: {origin, path (no trailing "/"), href}. */
function parts(text) {
  if (typeof text !== "string") return null; // an object could answer differently each time it is read
  let url;
  try {
    url = new URLClass(text);
  } catch {
    return null;
  }
  const protocol = apply(PROTOCOL, url, []);
  if (protocol !== "http:" && protocol !== "https:") return null;
  if (apply(USER, url, []) !== "" || apply(PASSWORD, url, []) !== "") return null; // user@host: a look-alike
  let path = apply(PATH, url, []);
  while (path.length && path[path.length - 1] === "/") path = apply(slice, path, [0, -1]);
  return { origin: protocol + "//" + apply(HOST, url, []), path, href: apply(HREF, url, []) };
}

/** The configured endpoint: {origin, path} of its base URL, or null when it is not an http(s) URL. */
export function parseEndpoint(baseUrl) {
  const found = parts(baseUrl);
  return found && { origin: found.origin, path: found.path };
}

/** The endpoint's origin (e.g. "http://127.0.0.1:11434"), or "" when the base URL is not http(s). */
export function endpointOrigin(baseUrl) {
  const found = parts(baseUrl);
  return found ? found.origin : "";
}

/**
 * The URL to send the key to — `url` written out in full — when it lies within the endpoint
 * (same origin, and the base URL's path or a path below it, with nothing encoded that a server
 * could decode into another path); else null.
 */
export function keyedURL(endpoint, url) {
  if (!endpoint) return null;
  const found = parts(url);
  if (!found || found.origin !== endpoint.origin || ambiguous(found.path)) return null;
  const inside =
    endpoint.path === "" || found.path === endpoint.path || apply(startsWith, found.path, [endpoint.path + "/"]);
  return inside ? found.href : null;
}

/** Whether a request to `url` gets the key of an endpoint whose base URL is `baseUrl` (the tests' view). */
export function carriesKey(baseUrl, url) {
  return keyedURL(parseEndpoint(baseUrl), url) !== null;
}
