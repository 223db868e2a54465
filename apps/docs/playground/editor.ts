// The playground's D editor: CodeMirror 6 with the D language, line
// numbers, undo history, bracket matching, Ctrl/Cmd-Enter to run, and the
// lines dtrace(1) reported errors at marked (class `cm-d-error` on the line
// and its gutter number) until the text changes. Owns the editor's DOM only.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { HighlightStyle, bracketMatching, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { EditorState, RangeSet, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, GutterMarker, drawSelection, gutterLineClass, highlightActiveLine, keymap, lineNumbers, type DecorationSet } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { dLanguage } from './d-language.js';

const setErrors = StateEffect.define<readonly number[]>();

const errorLine = Decoration.line({ class: 'cm-d-error', attributes: { 'data-testid': 'error-line' } });
class ErrorGutterMarker extends GutterMarker {
  override elementClass = 'cm-d-error-gutter';
}
const errorGutter = new ErrorGutterMarker();

/** The error lines: set by setErrors, cleared by any edit. */
const errors = StateField.define<readonly number[]>({
  create: () => [],
  update(lines, tr) {
    for (const e of tr.effects) if (e.is(setErrors)) return e.value;
    return tr.docChanged ? [] : lines;
  },
});

/** The starts of the error lines that exist in the text, in order. */
function errorLineStarts(state: EditorState): number[] {
  const doc = state.doc;
  return [...new Set(state.field(errors))].filter((n) => n >= 1 && n <= doc.lines).sort((a, b) => a - b).map((n) => doc.line(n).from);
}

const errorLines = EditorView.decorations.compute([errors], (state): DecorationSet => Decoration.set(errorLineStarts(state).map((at) => errorLine.range(at))));
const errorGutterLines = gutterLineClass.compute([errors], (state) => RangeSet.of(errorLineStarts(state).map((at) => errorGutter.range(at))));

const highlight = HighlightStyle.define([
  { tag: tags.comment, color: 'var(--pg-comment)', fontStyle: 'italic' },
  { tag: tags.meta, color: 'var(--pg-meta)' },
  { tag: tags.labelName, color: 'var(--pg-probe)', fontWeight: '600' },
  { tag: tags.keyword, color: 'var(--pg-keyword)' },
  { tag: tags.typeName, color: 'var(--pg-type)' },
  { tag: tags.string, color: 'var(--pg-string)' },
  { tag: tags.number, color: 'var(--pg-number)' },
  { tag: tags.special(tags.variableName), color: 'var(--pg-special)' },
  { tag: tags.standard(tags.variableName), color: 'var(--pg-builtin)' },
  { tag: tags.local(tags.variableName), color: 'var(--pg-local)' },
  { tag: tags.function(tags.variableName), color: 'var(--pg-function)' },
]);

export interface DEditor {
  readonly view: EditorView;
  text(): string;
  setText(text: string): void;
  /** Marks the lines dtrace(1) reported errors at (cleared when the text changes). */
  markErrors(lines: readonly number[]): void;
  destroy(): void;
}

export function createEditor(parent: HTMLElement, text: string, on: { change(text: string): void; run(): void }): DEditor {
  const extensions: Extension[] = [
    lineNumbers(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    highlightActiveLine(),
    dLanguage,
    syntaxHighlighting(highlight),
    errors,
    errorLines,
    errorGutterLines,
    keymap.of([{ key: 'Mod-Enter', run: () => (on.run(), true) }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) on.change(u.state.doc.toString());
    }),
    EditorView.contentAttributes.of({ 'aria-label': 'D program', 'data-testid': 'editor' }),
  ];
  const view = new EditorView({
    parent,
    state: EditorState.create({ doc: text, extensions }),
    dispatchTransactions(trs, v) {
      v.update(trs);
    },
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(t) {
      if (t === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
    },
    markErrors(lines) {
      view.dispatch({ effects: setErrors.of(lines) });
    },
    destroy: () => view.destroy(),
  };
}
