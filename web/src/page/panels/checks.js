// The Checks panel: each check ✓ (passed), ✗ (failed with its message) or – (not checked), and
// the tally the status line uses. ChecksPanel alone writes the panel; the page tells it what
// happened (a lesson drawn, a run begun or ended) and asks it which checks failed.

import { el } from "../ui/dom.js";

// A check passed (✓: its claim was evaluated and held), failed (✗), or was not checked (–: a
// claim that holds only for the prepared scripted replies, not evaluated with a live model; its
// message says what the model did). A looplab without `status` reports only `ok`.

const SHOWN = {
  passed: { mark: "✓", css: "pass", say: "passed: " },
  failed: { mark: "✗", css: "fail", say: "failed: " },
  "not checked": { mark: "–", css: "unchecked", say: "not checked: " },
};

/** "passed", "failed" or "not checked". */
export function checkStatus(check) {
  return check.status || (check.ok ? "passed" : "failed");
}

/** How many checks passed, failed and were not checked, and how many were checked at all. */
export function tally(checks) {
  const count = (status) => checks.filter((c) => checkStatus(c) === status).length;
  const passed = count("passed"),
    failed = count("failed"),
    unchecked = count("not checked");
  return { passed, failed, unchecked, checked: checks.length - unchecked };
}

/** "7 of 7 checks passed · 2 not checked with a live model" */
export function describeTally({ passed, unchecked, checked }) {
  return `${passed} of ${checked} checks passed${unchecked ? ` · ${unchecked} not checked with a live model` : ""}`;
}

export class ChecksPanel {
  /** @param {HTMLElement} root  the panel (data-testid="checks") */
  constructor(root) {
    this.root = root;
  }

  /** A lesson drawn: its checks as its last run left them (marked stale), or still to run. */
  saved(record) {
    delete this.root.dataset.running;
    draw(this.root, (record && record.results) || [], { pending: !record });
    if (record && record.results) this.root.dataset.stale = "true";
    else delete this.root.dataset.stale;
  }

  /** A run begins: what is shown is about to be replaced. */
  running() {
    delete this.root.dataset.stale;
    this.root.dataset.running = "true";
  }

  /** A run of the lesson on screen ended: its checks (none when it was stopped or crashed first). */
  ended(checks = []) {
    this.idle();
    draw(this.root, checks);
  }

  /** No run is going any more (one of a lesson no longer on screen ended: nothing of it is shown). */
  idle() {
    delete this.root.dataset.running;
  }

  /** The names of the checks shown as failed. */
  failed() {
    return [...this.root.querySelectorAll(".check-fail .check-name")].map((name) => name.textContent);
  }
}

function draw(root, checks, { pending = false } = {}) {
  root.replaceChildren();
  if (!checks.length) {
    root.append(el("p", { class: "muted" }, pending ? "Run the lesson to check your code." : "No checks ran."));
    return;
  }
  const list = el("ul", { class: "checklist" });
  for (const check of checks) {
    const status = checkStatus(check);
    const shown = pending ? { mark: "•", css: "pending", say: "not run: " } : SHOWN[status] || SHOWN.failed;
    list.append(
      el(
        "li",
        {
          class: `check check-${shown.css}`,
          "data-ok": pending ? "" : String(check.ok),
          "data-status": pending ? "" : status,
        },
        el("span", { class: "check-mark", "aria-hidden": "true" }, shown.mark),
        el("span", { class: "sr-only" }, shown.say),
        el("span", { class: "check-name" }, check.name),
        !pending && status === "not checked" ? el("span", { class: "check-unchecked-label" }, "not checked") : null,
        check.message && status !== "passed" ? el("span", { class: "check-message" }, check.message) : null,
      ),
    );
  }
  const counts = tally(checks);
  if (!pending) root.append(el("p", { class: counts.failed ? "summary fail" : "summary pass" }, describeTally(counts)));
  root.prepend(list);
}
