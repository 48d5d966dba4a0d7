// input() in the page: Python's "stdin" question (looplab/_course/stdin.py) shows the prompt and an answer
// field in the Output panel; Enter answers, and the prompt and the answer stay in the output as a
// terminal would show them. Stop (the question's signal) takes the field away.

import { el } from "../ui/dom.js";

/**
 * Ask for one line in the Output panel: resolves with {text} when the learner presses Enter.
 * @param {import("./output.js").Output} output
 * @param {{prompt?: string}} request
 * @param {{blocking: boolean, signal: AbortSignal}} options
 */
export function askLine(output, request, { blocking, signal }) {
  const prompt = typeof request.prompt === "string" ? request.prompt : "";
  // Not isolated: Python did not wait, and its EOFError says why; nothing to answer here.
  if (!blocking) return { unavailable: "the page is not cross-origin isolated" };
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
    };
    field.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      const text = field.value;
      done();
      output.write(`${prompt}${text}\n`, "stdin");
      resolve({ text });
    });
    signal.addEventListener("abort", done);
    output.place(line);
    field.focus({ preventScroll: true });
  });
}
