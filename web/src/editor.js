// CodeMirror 6 editors for code cells: Python, line numbers, theme from CSS variables
// (light and dark follow the page), autocorrect/autocapitalise off, Tab indents and
// Esc then Tab leaves the editor (CodeMirror's tab-focus mode).

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { syntaxHighlighting } from "@codemirror/language";
import { classHighlighter } from "@lezer/highlight";
import { python } from "@codemirror/lang-python";

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--code-bg)", color: "var(--code-fg)", fontSize: "0.92rem" },
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--code-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--code-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active)" },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "-2px" },
  ".cm-cursor": { borderLeftColor: "var(--accent)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--code-selection) !important" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
});

/**
 * A code editor in `parent` (or, with parent null, for the caller to place: view.dom).
 * @param {object} options  doc, readOnly, label (for screen readers), onChange(text), keys (extra keymap, highest precedence)
 */
export function createEditor(parent, { doc, readOnly = false, label = "Python code", onChange, keys = [] }) {
  const extensions = [
    Prec.highest(keymap.of(keys)),
    basicSetup,
    keymap.of([indentWithTab]),
    python(),
    syntaxHighlighting(classHighlighter),
    theme,
    EditorView.contentAttributes.of({
      autocorrect: "off",
      autocapitalize: "off",
      spellcheck: "false",
      "aria-label": label,
    }),
  ];
  if (readOnly) extensions.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
  if (onChange) {
    extensions.push(EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange(update.state.doc.toString());
    }));
  }
  return new EditorView({ parent: parent || undefined, state: EditorState.create({ doc, extensions }) });
}
