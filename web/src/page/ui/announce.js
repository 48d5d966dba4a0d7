// What a screen reader hears about Python and runs: one sentence when Python is ready, one when
// Python waits for an answer (input()), and one when a run ends (its outcome, then the names of the
// checks that failed; a chat turn's: the reply), in a polite live region.
// The status line changes too often to be a live region itself (a progress line while Python
// loads) and the Output console must not be one (a print loop would flood the listener).
// A crash is not repeated here: the page's toast (role="alert") says it already.

const RUNNING = new Set(["running", "stopping", "asking"]); // "asking": Python waits for an answer

/** The sentence for a run that ended: the status line's text, then the failed checks' names. */
export function runSummary(statusText, failed) {
  const text = statusText
    .trim()
    .replace(/\s+·\s+/g, ", ")
    .replace(/[.…]*$/, ".");
  return failed.length ? `${text} Failed: ${failed.join("; ")}.` : text;
}

/**
 * Announce in `region` what the status line's data-state changes mean: loading -> ready, and a
 * run's end (running or stopping -> anything but crashed). `failed()`: the names of the checks the
 * Checks panel shows as failed.
 */
export function announceRuns(status, failed, region) {
  let last = status.dataset.state;
  let timer = 0;
  const say = (text) => {
    // Emptied first, so the same sentence twice in a row is read twice.
    region.textContent = "";
    clearTimeout(timer);
    timer = setTimeout(() => (region.textContent = text), 100);
  };
  new MutationObserver(() => {
    const state = status.dataset.state;
    if (state === last) return;
    const was = last;
    last = state;
    const text = status.querySelector("[data-role=status-text]")?.textContent || "";
    if (state === "asking") {
      say(text); // once for each question: the answer's field has the focus and says what it answers
    } else if (RUNNING.has(state)) {
      if (!RUNNING.has(was)) say("");
    } else if (RUNNING.has(was) && state !== "crashed") {
      // a chat turn's end ("replied", page/chat/chat.js) is the agent's reply: the lesson's checks are not its
      say(runSummary(text, state === "replied" ? [] : failed()));
    } else if (state === "ready" && (was === undefined || was === "loading" || was === "crashed")) {
      say(runSummary(text, []));
    }
  }).observe(status, { attributes: true, attributeFilter: ["data-state"] });
}
