// A reply's thought apart from its answer. Reasoning models (Qwen3 among the small ones) think
// aloud first, between <think> and </think>, unless told not to. The local engine asks them not to
// (enable_thinking: false, and llama.cpp hands any reasoning it still parses as
// reasoning_content); whatever thinking is left in the text is taken out here, so it is shown as
// the reply's thought and never read as the answer (nor as a tool call's JSON). No DOM: Node runs
// it in tests/site/test_thought.py.

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Split a reply's text into {thought, answer}. A thought is every <think>…</think> block; an
 * unclosed <think> (the reply was cut while thinking) makes the rest a thought, and a </think>
 * with no opening (the template opened the block in the prompt) makes what precedes it one.
 * The answer is what is left, trimmed; thought is "" when there was none.
 */
export function splitThought(text) {
  if (typeof text !== "string" || (!text.includes(OPEN) && !text.includes(CLOSE))) {
    return { thought: "", answer: typeof text === "string" ? text : "" };
  }
  const thoughts = [];
  let rest = text;
  const firstClose = rest.indexOf(CLOSE);
  const firstOpen = rest.indexOf(OPEN);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    thoughts.push(rest.slice(0, firstClose));
    rest = rest.slice(firstClose + CLOSE.length);
  }
  let answer = "";
  for (;;) {
    const open = rest.indexOf(OPEN);
    if (open === -1) {
      answer += rest;
      break;
    }
    answer += rest.slice(0, open);
    const close = rest.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) {
      thoughts.push(rest.slice(open + OPEN.length));
      break;
    }
    thoughts.push(rest.slice(open + OPEN.length, close));
    rest = rest.slice(close + CLOSE.length);
  }
  return {
    thought: thoughts
      .map((t) => t.trim())
      .filter(Boolean)
      .join("\n\n"),
    answer: answer.replaceAll(CLOSE, "").trim(),
  };
}

/**
 * An assistant message with its thinking moved out of `content` into `thought`: the engine's
 * reasoning_content first, then any <think> block left in the text. A message with tool calls and
 * no text keeps `content: null`.
 */
export function withoutThought(message, reasoning = "") {
  const { thought, answer } = splitThought(message.content);
  const all = [String(reasoning || "").trim(), thought].filter(Boolean).join("\n\n");
  const out = { ...message, content: answer || (message.tool_calls ? null : answer) };
  if (all) out.thought = all;
  return out;
}
