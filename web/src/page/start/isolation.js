// Cross-origin isolation on any static host. Shared memory (Stop as an interrupt, approvals that
// pause a run) needs the page to be cross-origin isolated, which takes two response headers many
// hosts cannot send (GitHub Pages, a plain static server). Loop Lab's service worker adds them to
// the page it serves (sw.js), so a page it controls is isolated; on a first visit nothing
// controls the page yet: it registers the service worker at once, waits until it takes over, and
// reloads once. The reload is guarded for the tab's session: if the page is still not isolated
// after it, Python starts without shared memory and the ready line says so; never a reload loop.

import { thisVisit } from "./visit.js";

const RELOADED = "looplab:v1:isolation-reload"; // sessionStorage: this tab reloaded once to isolate itself

function readFlag() {
  try {
    return sessionStorage.getItem(RELOADED);
  } catch {
    return "no storage"; // no way to guard a reload: do not try
  }
}

/** Why this page cannot isolate itself by a reload, or null when it can. */
function obstacle() {
  if (!("serviceWorker" in navigator) || !self.isSecureContext)
    return "this browser gives the page no service worker here";
  const flag = readFlag();
  if (flag === "no storage") return "the page cannot keep a note that it reloaded (storage is off)";
  if (flag) return "it was reloaded once and the host's headers still win";
  return null;
}

/** Whether isolate() will reload this page (nothing should start before it does: early.js). */
export function willReload() {
  return !thisVisit().isolated && obstacle() === null;
}

/** Resolves once the service worker that will control the next load of this page is active. */
async function controlled(register) {
  const registration = await register();
  const incoming = registration.installing || registration.waiting;
  if (!incoming) return; // active already (a hard reload bypassed it): the next load goes through it
  await new Promise((resolve, reject) => {
    navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }); // it claims this page
    incoming.addEventListener("statechange", () => {
      if (incoming.state === "redundant") reject(new Error("it failed to install"));
    });
  });
}

/**
 * Make the page isolated before Python starts: {isolated: true}, or {reloading: true} (the page
 * is about to reload: start nothing), or {isolated: false, why}.
 * @param {() => Promise<ServiceWorkerRegistration>} register  chrome.js serviceWorker()'s
 * @param {(text: string) => void} say  the status line
 */
export async function isolate(register, say, { timeoutMs = 60_000 } = {}) {
  if (thisVisit().isolated) {
    try {
      sessionStorage.removeItem(RELOADED);
    } catch {
      /* storage off: nothing was set */
    }
    return { isolated: true };
  }
  const why = obstacle();
  if (why) return { isolated: false, why };
  say(
    "First visit: setting up Loop Lab's service worker, then the page reloads once (so Stop and approvals work here)…",
  );
  let timer;
  try {
    await Promise.race([
      controlled(register),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error("it did not take over in time")), timeoutMs)),
      ),
    ]);
  } catch (error) {
    return {
      isolated: false,
      why: `its service worker could not be set up (${error && error.message ? error.message : error})`,
    };
  } finally {
    clearTimeout(timer);
  }
  sessionStorage.setItem(RELOADED, String(Date.now()));
  say("Reloading once, now isolated…");
  location.reload();
  return { reloading: true };
}
