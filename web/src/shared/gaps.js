// What a browser may lack that the page adapts to, named once in the page's words: the status line,
// the panels and Python's own errors give the same reason. No DOM: the worker imports it too.

/** noSharedMemory's answer on a page that is not cross-origin isolated (its other answer is a
 * browser's own gap). */
export const NOT_ISOLATED = "the page is not cross-origin isolated";

/** Why Python cannot wait on shared memory here (input(), approvals, the local model, Stop as an
 * interrupt), or null when it can. Safari, Chromium and Firefox share memory with a cross-origin
 * isolated page; WebKitGTK (GNOME Web) is isolated but gives it no SharedArrayBuffer. The one place
 * cross-origin isolation is read: the page's start/visit.js takes `isolated` from here, and the
 * worker asks here too. */
export function noSharedMemory() {
  if (self.crossOriginIsolated && typeof SharedArrayBuffer === "function") return null;
  return self.crossOriginIsolated ? "this browser gives an isolated page no SharedArrayBuffer" : NOT_ISOLATED;
}

/** Whether Python can wait for the browser in the middle of a call (JavaScript Promise
 * integration, JSPI: Chromium, Firefox 153+; not Safari): a live reply is then read as it arrives. */
export const CAN_SUSPEND = typeof WebAssembly === "object" && typeof WebAssembly.Suspending === "function";

/** What a live run says where JSPI is missing: its replies come whole. */
export const NO_STREAMING =
  "this browser shows a live reply when it is whole: it cannot pause Python for each piece (no JSPI)";
