// Progressive enhancement: the plain textarea stays in the form and is always
// the source of truth that gets submitted, so the page works without JS.
import { EditorState, Prec } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection,
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
  };
  textarea.dataset.editorReady = "true";
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
