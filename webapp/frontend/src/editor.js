// Progressive enhancement: the plain textarea stays in the form and is always
// the source of truth that gets submitted, so the page works without JS.
import { EditorState, Prec, RangeSet, StateEffect, StateField } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection, Decoration, GutterMarker,
  gutterLineClass,
} from "@codemirror/view";
import { history, historyKeymap, defaultKeymap, indentWithTab } from "@codemirror/commands";
import {
  indentOnInput, bracketMatching, syntaxHighlighting, defaultHighlightStyle, indentUnit,
} from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { python } from "@codemirror/lang-python";

const theme = EditorView.theme({
  "&": { border: "1px solid #ccc", minHeight: "16em", maxHeight: "32em" },
  ".cm-scroller": { overflow: "auto", fontFamily: "monospace" },
  // min-height must sit on the content too, or clicks below the last line miss it.
  ".cm-content, .cm-gutter": { minHeight: "16em" },
  // A line a result points at: underlined in the code, its number marked in the gutter.
  ".cm-error-line": { textDecoration: "underline wavy #d33", textDecorationSkipInk: "none" },
  ".cm-error-gutter": { color: "#fff", backgroundColor: "#c62828", fontWeight: "bold" },
});

// The lines a result points at (a syntax error, the frames of a traceback): underlined, and
// marked in the line-number gutter. Edits move the marks with their lines; the next result
// replaces them.
const setErrorLines = StateEffect.define();
const errorLine = Decoration.line({ class: "cm-error-line" });
const errorGutter = new (class extends GutterMarker {
  elementClass = "cm-error-gutter";
})();

const errorLines = StateField.define({
  create: () => ({ lines: Decoration.none, gutter: RangeSet.empty }),
  update(value, transaction) {
    let { lines, gutter } = value;
    if (transaction.docChanged) {
      lines = lines.map(transaction.changes);
      gutter = gutter.map(transaction.changes);
    }
    for (const effect of transaction.effects) {
      if (!effect.is(setErrorLines)) continue;
      const doc = transaction.state.doc;
      const starts = [...new Set(effect.value)]
        .filter((number) => number >= 1 && number <= doc.lines)
        .sort((a, b) => a - b)
        .map((number) => doc.line(number).from);
      lines = Decoration.set(starts.map((from) => errorLine.range(from)));
      gutter = RangeSet.of(starts.map((from) => errorGutter.range(from)));
    }
    return { lines, gutter };
  },
  provide: (field) => [
    EditorView.decorations.from(field, (value) => value.lines),
    gutterLineClass.from(field, (value) => value.gutter),
  ],
});

function enhance(textarea) {
  const readOnly = textarea.hasAttribute("readonly");

  const syncToTextarea = EditorView.updateListener.of((update) => {
    if (!update.docChanged) return;
    textarea.value = update.state.doc.toString();
    // Page scripts (draft saving) listen for "input" on the textarea.
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
  });

  // Highest precedence so Mod-Enter is never swallowed as a newline insert: Mod-Enter runs
  // the visible tests, Shift-Mod-Enter submits (the page script listens for these events).
  const send = (name) => () => {
    textarea.dispatchEvent(new CustomEvent(name, { bubbles: true }));
    return true;
  };
  const runKey = Prec.highest(keymap.of([
    { key: "Mod-Enter", run: send("editor-run") },
    { key: "Shift-Mod-Enter", run: send("editor-submit") },
  ]));

  const view = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        runKey,
        lineNumbers(),
        highlightActiveLine(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        python(),
        indentUnit.of("    "),
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap, ...closeBracketsKeymap]),
        theme,
        errorLines,
        syncToTextarea,
        EditorState.readOnly.of(readOnly),
        EditorView.editable.of(!readOnly),
        EditorView.contentAttributes.of({
          "aria-label": textarea.getAttribute("aria-label") || "Code editor",
        }),
        EditorView.editorAttributes.of({ class: "jj-editor", "data-testid": "code-editor" }),
      ],
    }),
  });

  textarea.after(view.dom);
  textarea.style.display = "none";

  textarea.jaxjudgeEditor = {
    getValue: () => view.state.doc.toString(),
    setValue: (text) => view.dispatch({
      changes: { from: 0, to: view.state.doc.length, insert: text },
    }),
    // Mark these 1-based lines as where a result found errors (none: clear the marks).
    markErrorLines: (numbers) => view.dispatch({ effects: setErrorLines.of(numbers) }),
    // Put the cursor at the start of a 1-based line, in view, and the focus in the editor.
    goToLine: (number) => {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(1, number), doc.lines));
      view.dispatch({ selection: { anchor: line.from }, effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
      view.focus();
    },
  };
  textarea.dataset.editorReady = "true";
  textarea.dispatchEvent(new CustomEvent("editor-ready"));
}

function enhanceAll() {
  document.querySelectorAll('textarea[data-editor="python"]').forEach((ta) => {
    // Guard against double-inclusion of the bundle.
    if (ta.dataset.editorReady !== "true") enhance(ta);
  });
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", enhanceAll);
} else {
  enhanceAll();
}
