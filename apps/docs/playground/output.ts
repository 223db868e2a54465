// The output element: dtrace(1)'s byte strings appended as they come, read
// as UTF-8 per stream (a character split across two pieces is joined), with
// standard error set apart by a class. Its text is what the CLI prints with
// both streams on one terminal. Owns that element's children only.
import type { OutputChunk } from './protocol.js';

/** Past this many characters the page stops showing more (the run goes on). */
const LIMIT = 4_000_000;

export class OutputView {
  private readonly decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  private shown = 0;
  private cut = false;

  constructor(private readonly element: HTMLElement) {}

  clear(): void {
    this.element.textContent = '';
    this.decoders.stdout = new TextDecoder();
    this.decoders.stderr = new TextDecoder();
    this.shown = 0;
    this.cut = false;
  }

  append(chunks: readonly OutputChunk[]): void {
    for (const c of chunks) {
      const bytes = Uint8Array.from(c.text, (ch) => ch.charCodeAt(0));
      this.text(c.stream, this.decoders[c.stream].decode(bytes, { stream: true }));
    }
  }

  /** A line of the page's own (not dtrace(1)'s), set apart. */
  note(text: string): void {
    const span = document.createElement('span');
    span.className = 'pg-note';
    span.textContent = text;
    this.element.append(span);
  }

  private text(stream: 'stdout' | 'stderr', text: string): void {
    if (text === '' || this.cut) return;
    if (this.shown + text.length > LIMIT) {
      this.cut = true;
      this.note(`\n(the page shows the first ${LIMIT.toLocaleString('en')} characters of output; the CLI prints the rest)\n`);
      return;
    }
    this.shown += text.length;
    const last = this.element.lastElementChild;
    if (last instanceof HTMLSpanElement && last.dataset.stream === stream) {
      last.append(text);
      return;
    }
    const span = document.createElement('span');
    span.dataset.stream = stream;
    if (stream === 'stderr') span.className = 'pg-stderr';
    span.textContent = text;
    this.element.append(span);
  }
}
