// Approve in the page: a run paused by looplab's `ask_person` (looplab/approvals.py) shows the
// tool, its arguments, the step and, for an edit, the diff of the change (looplab._course.editreview), and waits for Approve or Reject (with an optional reason the
// model reads). Esc rejects. When the page is not cross-origin isolated the run could not pause:
// the dialog says the call was refused by default. Stop closes the dialog with its run.

import { pretty } from "../ui/text.js";
import { drawDiff } from "./diffview.js";

/**
 * @param {HTMLDialogElement} dialog  the approval dialog of index.html
 * @returns {(request, {blocking, signal, step}) => Promise<{approved, reason}>}
 */
export function setupApproval(dialog) {
  const $ = (role) => dialog.querySelector(`[data-role=${role}]`);
  const reason = $("approval-reason");
  const decide = [
    dialog.querySelector("[data-testid=approve]"),
    dialog.querySelector("[data-testid=reject]"),
    $("approval-reason-row"),
  ];

  return function ask({ tool, arguments: args, diff }, { blocking, signal, step }) {
    const before = document.activeElement;
    $("approval-what").textContent =
      `${step ? `Step ${step}: t` : "T"}he model asks to run ${tool} with these arguments:`;
    $("approval-args").textContent = pretty(args);
    $("approval-diff").hidden = $("approval-diff-title").hidden = !diff;
    if (diff) drawDiff($("approval-diff"), diff);
    $("approval-note").hidden = blocking;
    $("approval-note").textContent = blocking
      ? ""
      : "This page is not cross-origin isolated, so the run could not pause to ask you: the call was refused by default. (Reload the page; Loop Lab isolates itself on the second load.)";
    for (const part of decide) part.hidden = !blocking;
    $("approval-ok").hidden = blocking;
    reason.value = "";
    dialog.returnValue = "";
    dialog.showModal();
    (blocking ? dialog.querySelector("[data-testid=reject]") : $("approval-ok")).focus(); // the safe choice first
    return new Promise((resolve) => {
      const done = () => {
        dialog.removeEventListener("close", done);
        signal.removeEventListener("abort", abort);
        if (before && before.isConnected) before.focus();
        const approved = dialog.returnValue === "approve";
        resolve({ approved, reason: approved ? "" : reason.value.trim() });
      };
      const abort = () => dialog.open && dialog.close("stopped");
      dialog.addEventListener("close", done);
      signal.addEventListener("abort", abort);
    });
  };
}
