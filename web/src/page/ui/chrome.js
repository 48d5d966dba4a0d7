// The page's chrome, around the lesson and its run: the status line (text, loading bar, toasts),
// the light/dark theme, the phone's Read/Code/Output tabs and the panels' tabs, the phone's
// lesson drawer, the shortcuts overlay, and the service worker. main.js hands each its elements.

import { saveTheme } from "./storage.js";

/** The status line: one sentence and a state (CSS colours it; tests and benchmarks read it). */
export class StatusLine {
  /** The page's status line: its root is [data-testid=status], its parts are found by their roles. */
  static find($) {
    const [text, progress, toast] = ["status-text", "progress", "toast"].map((role) => $(`[data-role=${role}]`));
    return new StatusLine({ root: $('[data-testid="status"]'), text, progress, toast });
  }

  /** @param {object} ui  {root, text, progress (a <progress>), toast} */
  constructor({ root, text, progress, toast }) {
    this.root = root;
    this.text = text;
    this.bar = progress;
    this.toastBox = toast;
    this.about = null; // the lesson (its open's ticket, session.js) the sentence is about, or null when it is about Python
  }

  get state() {
    return this.root.dataset.state;
  }

  /** Show a sentence; `extra` goes to the element's data attributes, `about` is its lesson's ticket. */
  show(text, state, { about = null, ...extra } = {}) {
    this.text.textContent = text;
    this.said = text;
    this.written = "";
    this.root.dataset.state = state;
    this.about = about;
    for (const [key, value] of Object.entries(extra)) this.root.dataset[key] = value;
  }

  /** Python waits for the learner's answer (input()): `text` says so (state "asking") until
   * `answered`, which brings the sentence before back, unless another has replaced it since. */
  asking(text) {
    if (this.state !== "asking") this.before = { said: this.said, state: this.state, about: this.about };
    this.show(text, "asking", { about: this.before.about });
  }

  answered() {
    const before = this.before;
    this.before = null;
    if (this.state === "asking" && before) this.show(before.said, before.state, { about: before.about });
  }

  /** A model reply's text as it is written (a streamed reply), after the running sentence: its
   * last words, so the line stays one line; null when a new reply begins. */
  writing(text) {
    if (this.state !== "running") return;
    if (text === null) {
      // a new reply begins: the running sentence alone again
      this.written = "";
      this.text.textContent = this.said;
      return;
    }
    this.written = (this.written + text).replace(/\s+/g, " ").slice(-80);
    this.text.textContent = `${this.said} The model writes: “${this.written.trimStart()}”`;
  }

  /** Set (or, with undefined, remove) the timestamps kept as data attributes: runStarted ... */
  stamp(values) {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete this.root.dataset[key];
      else this.root.dataset[key] = String(value);
    }
  }

  /** The loading bar: bytes loaded of the total. */
  loading(loaded, total) {
    this.bar.max = total;
    this.bar.value = Math.min(loaded, total);
    this.bar.hidden = false;
  }

  loaded() {
    this.bar.value = this.bar.max;
    this.bar.hidden = true;
  }

  /** A passing message, gone after `ms`. */
  toast(text, ms = 6000) {
    this.toastBox.textContent = text;
    this.toastBox.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => (this.toastBox.hidden = true), ms);
  }
}

// --- theme -------------------------------------------------------------------------------------

/** The theme button: switches light and dark (index.html applies the saved one before paint). */
export function setupTheme(button) {
  button.addEventListener("click", () => {
    const root = document.documentElement;
    const shown = root.dataset.theme || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
    root.dataset.theme = shown === "dark" ? "light" : "dark";
    saveTheme(root.dataset.theme);
  });
}

// --- phone tabs and panel tabs -----------------------------------------------------------------

/** The phone's Read/Code/Output buttons and the panels' Output/Trace/Context tabs of `root`; returns setTab. */
export function setupTabs(root = document) {
  const phoneButtons = root.querySelectorAll(".phone-tabs button");
  const panelTabs = root.querySelectorAll(".panel-tabs [role=tab]");
  const panelBodies = root.querySelectorAll("[data-panel-body]");
  const setTab = (tab) => {
    document.body.dataset.tab = tab;
    for (const button of phoneButtons) button.setAttribute("aria-pressed", String(button.dataset.tab === tab));
  };
  const setPanel = (name) => {
    for (const tab of panelTabs) tab.setAttribute("aria-selected", String(tab.dataset.panel === name));
    for (const body of panelBodies) body.hidden = body.dataset.panelBody !== name;
  };
  for (const button of phoneButtons) button.addEventListener("click", () => setTab(button.dataset.tab));
  for (const tab of panelTabs) tab.addEventListener("click", () => setPanel(tab.dataset.panel));
  return setTab;
}

// --- the phone's lesson drawer -----------------------------------------------------------------

/** The ☰ button opens the lesson list as a drawer; a choice in the list or Esc closes it. */
export function setupDrawer(button, list) {
  const setOpen = (open) => {
    document.body.classList.toggle("menu-open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => setOpen(!document.body.classList.contains("menu-open")));
  list.addEventListener("click", () => setOpen(false));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("menu-open")) {
      setOpen(false);
      button.focus();
    }
  });
}

// --- the shortcuts overlay ---------------------------------------------------------------------

/** The ? button opens the keyboard shortcuts dialog; returns the function that opens it. */
export function setupHelp(button, dialog) {
  const open = () => dialog.showModal();
  button.addEventListener("click", open);
  return open;
}

// --- service worker ----------------------------------------------------------------------------

/**
 * Watch for a new build's service worker: it takes over as soon as it has cached everything
 * (skipWaiting); this page keeps running the code it loaded, and `onNewVersion` says a reload
 * brings the new version. Returns register() -> Promise<registration>, called once Python is
 * ready, so the precaching does not compete with the first load (it then mostly revalidates what
 * the HTTP cache holds), or at once when the page must isolate itself (isolation.js).
 */
export function serviceWorker(onNewVersion, warm) {
  if (!("serviceWorker" in navigator)) return () => Promise.reject(new Error("this browser has no service workers"));
  // `warm` (start/visit.js): a service worker controlled the page already, so one taking over is a new build's
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (warm) onNewVersion();
  });
  let registration = null;
  return () => {
    if (!registration) {
      registration = navigator.serviceWorker.register("sw.js");
      registration.catch((error) => console.warn("service worker not registered:", error));
    }
    return registration;
  };
}

/** A panel ("output", "chat") brought forward where the learner looks (Python asks for an answer
 * there): on a phone the panels' view first, then its tab. */
export function forwarder(setTab) {
  return (name) => {
    if (document.body.dataset.tab !== "output" && matchMedia("(max-width: 760px)").matches) setTab("output");
    const tab = document.querySelector(`#tab-${name}`);
    if (tab.getAttribute("aria-selected") !== "true") tab.click();
  };
}
