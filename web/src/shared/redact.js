// The page's one rule for keeping API keys out of what it shows: the run's own key, and anything
// shaped like a key. The shapes are looplab.trace.KEY_SHAPES, written the same way (tests/site
// checks both sides redact the same texts alike), so stdout, the trace, errors and the settings
// dialog's messages hide the same keys Python's own redaction hides.

export const REDACTED = "[redacted]";

export const KEY_SHAPES = new RegExp(
  String.raw`(?:\bsk-[A-Za-z0-9_\-]{12,}` + // OpenAI-style keys, incl. sk-proj-, sk-ant-
    String.raw`|\bBearer\s+[A-Za-z0-9._~+/\-]{8,}=*` + // Authorization header values
    String.raw`|\b(?:gsk|xai|hf|ghp|github_pat|AIza)[_\-A-Za-z0-9]{16,})`,
  "g",
);

/** The text without `secret` (when it is long enough to be a key) and without anything key-shaped. */
export function redact(text, secret = "") {
  text = String(text ?? "");
  if (secret && secret.length >= 4) text = text.split(secret).join(REDACTED);
  return text.replace(KEY_SHAPES, REDACTED);
}
