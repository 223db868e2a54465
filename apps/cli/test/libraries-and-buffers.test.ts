// D library directories (-L, -x libdir: dt_opt_libdir and dt_load_libs_dir)
// and the buffer sizes dtrace_state_go refuses before tracing starts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

describe('D library directories', () => {
  let root = '';
  let first = '';
  let second = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'wdtrace-libdir-'));
    first = join(root, 'first');
    second = join(root, 'second');
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(join(first, 'answers.d'), 'inline int ANSWER = 42;\ntypedef struct pair { int p_a; int p_b; } pair_t;\n');
    writeFileSync(join(first, 'notes.txt'), 'this is no D library\n');
    // Named as a library loaded before it: left out, so its error never shows.
    writeFileSync(join(second, 'answers.d'), 'this is not D\n');
    writeFileSync(join(second, 'errno.d'), 'inline int ENOENT = 1000;\n');
    writeFileSync(join(second, 'more.d'), 'inline int MORE = ANSWER + 1;\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('-L compiles every .d file of the directory ahead of the program', async () => {
    const r = await wdtrace('-L', first, '-qn', 'BEGIN { printf("%d %d\\n", ANSWER, sizeof (pair_t)); exit(0) }');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('42 8\n\n');
    expect(r.status).toBe(0);
  });

  it('takes the directories in order, skipping a file named as one loaded before, dtrace\'s own first', async () => {
    const r = await wdtrace('-L', first, '-x', `libdir=${second}`, '-qn', 'BEGIN { printf("%d %d\\n", MORE, ENOENT); exit(0) }');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('43 2\n\n');
  });

  it('names the library file of a compile error', async () => {
    const r = await wdtrace('-L', second, '-qn', 'BEGIN { exit(0) }');
    expect(r.stderr).toBe(`dtrace: invalid probe specifier BEGIN { exit(0) }: ${join(second, 'answers.d')}, line 1: syntax error near "not"\n`);
    expect(r.status).toBe(1);
  });

  it('skips a directory that does not exist, and loads none under -x nolibs', async () => {
    expect((await wdtrace('-L', join(root, 'none'), '-qn', 'BEGIN { exit(0) }')).status).toBe(0);
    const r = await wdtrace('-L', first, '-x', 'nolibs', '-qn', 'BEGIN { printf("%d", ANSWER); exit(0) }');
    expect(r.stderr).toBe('dtrace: invalid probe specifier BEGIN { printf("%d", ANSWER); exit(0) }: line 1: failed to resolve ANSWER: Unknown variable name\n');
    expect(r.status).toBe(1);
  });
});

describe('buffer sizes (dtrace_state_go)', () => {
  it('refuses a fill buffer smaller than the END enablings need (E2BIG)', async () => {
    const r = await wdtrace('-x', 'bufpolicy=fill', '-b', '16', '-qn', 'BEGIN { exit(0) } END { trace(1); trace(2); trace(3); }');
    expect(r.stderr).toBe('dtrace: could not enable tracing: END enablings exceed size of principal buffer\n');
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
  });

  it('accepts the same buffer under the switch policy, where END reserves nothing', async () => {
    const r = await wdtrace('-b', '16', '-qn', 'BEGIN { exit(0) } END { trace(1); trace(2); trace(3); }');
    expect(r.stderr).not.toMatch(/could not enable tracing/);
  });

  it('refuses a buffer smaller than a uint64_t (ENOSPC)', async () => {
    const r = await wdtrace('-b', '4', '-qn', 'BEGIN { exit(0) }');
    expect(r.stderr).toBe('dtrace: could not enable tracing: Enabling exceeds size of buffer\n');
    expect(r.status).toBe(1);
    const agg = await wdtrace('-x', 'aggsize=0', '-qn', 'BEGIN { @a = count(); exit(0) }');
    expect(agg.stderr).toBe('dtrace: could not enable tracing: Enabling exceeds size of buffer\n');
  });
});
