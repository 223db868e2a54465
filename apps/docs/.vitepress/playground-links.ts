// "Run in the playground" links under the documentation's command examples:
// a fenced block's `$ wdtrace ...` lines (a command may go on over several
// lines until its quotes close) that the playground can run — traces, and
// `wdtrace dis --live` as the live kernel text of its probes — each get a
// link whose hash is the example's state with run=1. Touches the rendering
// of fenced blocks only.
import type { MarkdownRenderer } from 'vitepress';
import { exampleState, shellWords } from '../playground/command-line';
import { formatHash, type PlaygroundState } from '../playground/state';

/** The examples of a block's text the playground can run, in order. */
export function blockExamples(text: string): { command: string; state: PlaygroundState }[] {
  const lines = text.split('\n');
  const out: { command: string; state: PlaygroundState }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\$ .*\bwdtrace\b/.test(lines[i]!)) continue;
    let command = lines[i]!.slice(2);
    // Lines follow until the quotes close.
    for (;;) {
      try {
        shellWords(command);
        break;
      } catch {
        if (i + 1 >= lines.length) break;
        command += '\n' + lines[++i];
      }
    }
    const state = exampleState(command);
    if (state) out.push({ command, state });
  }
  return out;
}

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function playgroundLinks(md: MarkdownRenderer, base = process.env.WDTRACE_DOCS_BASE ?? '/'): void {
  const fence = md.renderer.rules.fence!;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const html = fence(tokens, idx, options, env, self);
    const examples = blockExamples(tokens[idx]!.content);
    if (examples.length === 0) return html;
    const links = examples.map((e, i) => {
      const what = e.state.view === 'live' ? 'show the live kernel text in the playground' : 'run in the playground';
      const label = examples.length > 1 ? `${what} (${['first', 'second', 'third'][i] ?? `#${i + 1}`} command)` : what;
      return `<a href="${escape(`${base}playground${formatHash(e.state, true)}`)}" title="${escape(e.command)}">${label}</a>`;
    });
    return `${html}<p class="playground-link">${links.join(' · ')}</p>\n`;
  };
}
