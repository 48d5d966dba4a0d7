// Small text helpers the panels, the inspector and the approval dialog share: a long text cut to a
// limit, JSON shown indented, a count with its noun.

/** `text` cut to `limit` characters, an ellipsis marking the cut. */
export function short(text, limit = 160) {
  text = String(text ?? "");
  return text.length <= limit ? text : text.slice(0, limit - 1) + "…";
}

/** A value as indented JSON; a string that holds JSON is parsed first, any other string shown as it is. */
export function pretty(value, indent = 2) {
  if (typeof value !== "string") return JSON.stringify(value, null, indent);
  try {
    return JSON.stringify(JSON.parse(value), null, indent);
  } catch {
    return value;
  }
}

/** "1 step", "3 steps". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
