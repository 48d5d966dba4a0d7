// input() in the page: Python's "stdin" question (looplab/_course/stdin.py) shows the prompt and an answer
// field where the learner is — the Output panel, brought forward, for a lesson run; the turn being
// written, in the Chat tab, for a chat turn — and moves the focus there; the status line says that
// Python waits for an answer until it has one (announce.js reads that out once). Enter answers, and
// the prompt and the answer stay in the output as a terminal would show them. Stop (the question's
// signal) takes the field away.

import { el } from "../ui/dom.js";

/** The status line's sentence while Python waits (state "asking"). */
export const waitingSentence = (prompt) =>
  `Python is waiting for your answer${prompt.trim() ? `: “${prompt.trim()}”` : ""} (type it and press Enter).`;

/**
 * Ask for one line: resolves with {text} when the learner presses Enter.
 * @param {{show: (line: HTMLElement) => void, answered: (text: string) => void}} where
 *   `show` brings the place forward and puts the prompt and field there; `answered` keeps the
 *   answered line (the prompt and the answer) in the output
 * @param {{prompt?: string}} request
 * @param {{blocking: boolean, signal: AbortSignal}} options
 * @param {{asking: (text: string) => void, answered: () => void}} status  the status line
 */
export function askLine(where, request, { blocking, signal }, status) {
  const prompt = typeof request.prompt === "string" ? request.prompt : "";
  // Not isolated: Python did not wait, and its EOFError says why; nothing to answer here.
  if (!blocking) return { unavailable: "the page is not cross-origin isolated" };
  if (signal.aborted) return { unavailable: "the run ended" };
  return new Promise((resolve) => {
    const field = el("input", {
      type: "text",
      class: "out-stdin-field",
      "data-testid": "stdin",
      autocomplete: "off",
      spellcheck: "false",
      "aria-label": prompt.trim() ? `Answer to: ${prompt.trim()}` : "Answer for input()",
    });
    const line = el(
      "span",
      { class: "out-ask", "data-role": "stdin-line" },
      el("span", { class: "out-stdout" }, prompt),
      field,
    );
    const done = () => {
      line.remove();
      signal.removeEventListener("abort", done);
      status.answered();
    };
    field.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      const text = field.value;
      done();
      where.answered(`${prompt}${text}\n`);
      resolve({ text });
    });
    signal.addEventListener("abort", done);
    where.show(line);
    status.asking(waitingSentence(prompt));
    field.focus({ preventScroll: true });
    field.scrollIntoView({ block: "nearest" });
  });
}
