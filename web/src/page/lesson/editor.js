// CodeMirror 6 editors for code cells: Python, line numbers, theme from CSS variables
// (light and dark follow the page), autocorrect/autocapitalise off, Tab indents and
// Esc then Tab leaves the editor (CodeMirror's tab-focus mode).
// Every syntax colour is a CSS variable (web/styles/site.css) chosen for at least 4.5:1 against the
// editor's background, its active line and its selection, light and dark (tests/e2e/test_a11y.py
// measures them in the page).

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import { python } from "@codemirror/lang-python";

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--code-bg)", color: "var(--code-fg)", fontSize: "0.92rem" },
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--code-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--code-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active)" },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "-2px" },
  ".cm-cursor": { borderLeftColor: "var(--accent)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--code-selection) !important",
  },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
  // Marked with a line, not a background colour: every token keeps its contrast.
  ".cm-selectionMatch": { backgroundColor: "transparent", outline: "1px dashed var(--muted)" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "transparent", outline: "1px solid var(--muted)" },
  "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: "transparent", outline: "1px solid var(--fail)" },
});

const highlight = HighlightStyle.define([
  { tag: t.keyword, color: "var(--tok-keyword)" },
  { tag: t.string, color: "var(--tok-string)" },
  { tag: [t.number, t.escape], color: "var(--tok-number)" },
  { tag: t.comment, color: "var(--tok-comment)", fontStyle: "italic" },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: "var(--tok-function)" },
  { tag: [t.function(t.definition(t.variableName)), t.definition(t.variableName)], color: "var(--tok-def)" },
  { tag: [t.className, t.definition(t.className), t.typeName], color: "var(--tok-type)" },
  { tag: [t.bool, t.null, t.atom, t.self], color: "var(--tok-bool)" },
  { tag: t.meta, color: "var(--tok-comment)" },
  { tag: t.invalid, color: "var(--fail)" },
]);

/**
 * A code editor's state (lazyeditor.js makes it in a task of its own, then its view: createView).
 * @param {object} options  doc, readOnly, label (for screen readers), onChange(text), keys (extra keymap, highest precedence)
 */
export function createState({ doc, readOnly = false, label = "Python code", onChange, keys = [] }) {
  const extensions = [
    Prec.highest(keymap.of(keys)),
    basicSetup,
    keymap.of([indentWithTab]),
    python(),
    syntaxHighlighting(highlight),
    theme,
    EditorView.contentAttributes.of({
      autocorrect: "off",
      autocapitalize: "off",
      spellcheck: "false",
      "aria-label": label,
      // In the Tab order explicitly, so axe-core counts the scroller as having focusable content
      // (it does not count contenteditable), and a read-only editor can be focused and scrolled by
      // keyboard too: CodeMirror's documented way to make uneditable content focusable.
      tabindex: "0",
    }),
  ];
  // Not editable (no caret), but focusable through the tabindex above: its keys still move and scroll.
  if (readOnly) extensions.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
  if (onChange) {
    extensions.push(
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
    );
  }
  return EditorState.create({ doc, extensions });
}

/** The editor for `state`, for the caller to place (view.dom). */
export function createView(state) {
  return new EditorView({ state });
}
