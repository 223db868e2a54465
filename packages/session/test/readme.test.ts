// The README's opening example, run as written (a separate Node process
// importing the built package), must print what the README says it prints.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The text of the first fenced block of `lang` in the README. */
function block(lang: string): string {
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme);
  if (!m) throw new Error(`the README has no \`\`\`${lang} block`);
  return m[1]!;
}

it('runs the README example and prints what the README shows', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', block('js')], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toBe(block('text'));
  expect(r.stderr).toBe('dtrace: pid 2 has exited\n'.repeat(2));
}, 120_000);
