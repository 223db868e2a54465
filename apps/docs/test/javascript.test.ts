// The JavaScript page's examples: every ```js block followed by the ```text
// block of what it prints is run as written (a Node process importing the
// built @wdtrace/session) and must print exactly that.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const site = fileURLToPath(new URL('..', import.meta.url));
const page = readFileSync(new URL('../guide/javascript.md', import.meta.url), 'utf8');
const examples = [...page.matchAll(/```js\n([\s\S]*?)```\n\nprints\n\n```text\n([\s\S]*?)```/g)].map((m) => ({ code: m[1]!, expected: m[2]! }));

describe('using wdtrace from JavaScript', () => {
  it('has its examples', () => {
    expect(examples.length).toBe(3);
  });

  it.each(examples.map((e, i) => [i + 1, e] as const))('example %d prints what the page shows', (_n, e) => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', e.code], { cwd: site, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(e.expected);
  }, 120_000);
});
