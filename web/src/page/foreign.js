// Code that came from elsewhere — a share link, an imported progress file, a notebook — is marked:
// a banner over the lesson (data-testid "foreign-code") says to read it before running it with
// your key, and the lesson runs on the scripted model until the learner chooses the live or the
// local model for it, with one click (main.js asks storage.js foreignSource for the lesson's mode).
// The learner's own edits are never marked.

import { el } from "./dom.js";

const WHAT = { link: "a link", "progress file": "a progress file", notebook: "a notebook" };

/** The model a lesson's runs use: scripted while its code is marked, else the toggle's. */
export function modeFor(from, mode) {
  return from ? "scripted" : mode;
}

/**
 * Draw the banner at the top of `root`. `onChoose(mode)` ("live" or "local") follows a click on
 * one of its buttons; the banner then goes away.
 */
export function showForeign(root, { from, onChoose }) {
  const what = WHAT[from] || "elsewhere";
  const choose = (mode, label) => {
    const button = el("button", { type: "button", "data-role": `foreign-${mode}` }, label);
    button.addEventListener("click", () => {
      banner.remove();
      onChoose(mode);
    });
    return button;
  };
  const banner = el("div", { class: "stale-note foreign-note", role: "note", "data-testid": "foreign-code", "data-from": from },
    el("p", {}, el("strong", {}, `Code from ${what} — read it before you run it with your key.`),
      " Until you choose, this lesson runs on the scripted model: nothing is sent to your endpoint."),
    el("p", {}, choose("live", "Run it with my live model"), " ", choose("local", "Run it with my local model")));
  root.prepend(banner);
  return banner;
}
