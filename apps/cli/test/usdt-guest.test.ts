// The guest's own programs with USDT probes, built with the project's -h
// and -G steps (packages/kernel/guest/build.sh): the shell's provider sh
// (commands, built-ins, functions) and the key-value server kvd's provider
// kv (a request lifecycle), on the three code sets. Provider globs match
// the usdt providers of every process as dtrace's do, and with -Z an
// enabling catches the providers of processes that start later (a forked
// shell, a server the shell runs).
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { wdtrace } from './support.js';

/** Runs `wdtrace ARGS...` with `input` as its standard input (the -c command's terminal). */
async function wdtraceInput(input: string, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await main(['node', 'wdtrace', ...args], { out: (s) => (stdout += s), err: (s) => (stderr += s), input: Readable.from([Buffer.from(input)]) });
  return { status, stdout, stderr };
}

/** The trace lines of `text`: each from its tag `@` on (the shell's "$ " prompt may come before it on its line). */
const tagged = (text: string): string[] => text.split('\n').filter((l) => l.includes('@')).map((l) => l.slice(l.indexOf('@')));

describe.each([
  { set: 'x86_64', arch: ['--arch', 'x86_64'] },
  { set: 'arm', arch: ['--arch', 'arm'] },
  { set: 'thumb', arch: ['--thumb'] },
])('the guest programs\' own usdt probes ($set)', ({ arch }) => {
  it('lists the shell\'s probes with -l', async () => {
    const r = await wdtrace(...arch, '-l', '-n', 'sh$target:::', '-c', '/bin/sh');
    const rows = r.stdout.split('\n').slice(1, -1).map((l) => l.trim().split(/\s+/).slice(1).join(' '));
    expect(rows).toEqual(['command-start', 'command-done', 'builtin-start', 'builtin-done', 'function-entry', 'function-return'].map((n) => `sh2 sh exec_simple ${n}`));
    expect(r.status).toBe(0);
  }, 180_000);

  it('fires the shell\'s command, built-in and function probes with their arguments', async () => {
    const r = await wdtraceInput(
      'echo hi\nfalse\ncd /tmp\nf() { return 3; }\nf a b\n',
      ...arch,
      '-q',
      '-n', 'sh$target:::command-start { printf("@start %s %d\\n", copyinstr(arg0), arg1); }',
      '-n', 'sh$target:::command-done { printf("@done %s %d %d\\n", copyinstr(arg0), arg1, arg2); }',
      '-n', 'sh$target:::builtin-done { printf("@builtin %s %d\\n", copyinstr(arg0), arg1); }',
      '-n', 'sh$target:::function-entry, sh$target:::function-return { printf("@%s %s %d\\n", probename, copyinstr(arg0), arg1); }',
      '-c', '/bin/sh',
    );
    expect(tagged(r.stdout)).toEqual([
      '@start echo hi 3',
      '@done echo hi 3 0',
      '@start false 4',
      '@done false 4 1',
      '@builtin cd /tmp 0',
      '@function-entry f 3',
      '@builtin return 3 3',
      '@function-return f 3',
    ]);
    expect(r.stdout).toContain('hi\n');
    expect(r.status).toBe(0);
  }, 180_000);

  it('matches provider globs against every process\'s usdt providers, and with -Z those of processes started later', async () => {
    const r = await wdtraceInput(
      'ls /etc | wc -l\nkvd -n 20\n',
      ...arch,
      '-q', '-Z',
      '-n', 'sh*:::command-start { printf("@%s %s %d\\n", probeprov, copyinstr(arg0), arg1); }',
      '-n', 'kv*:::request-done /arg0 <= 3/ { printf("@%s %d %s %s %d\\n", probeprov, arg0, copyinstr(arg1), copyinstr(arg2), arg3); }',
      '-n', '*:::table-grow { printf("@grow %d\\n", arg0); }',
      '-c', '/bin/sh',
    );
    // The pipeline's two children are shells of their own (forked: their providers sh3, sh4 come to be);
    // kvd, run by the shell, has kv5 from its exec on.
    expect(tagged(r.stdout)).toEqual(['@sh3 ls /etc 3', '@sh4 wc -l 4', '@sh2 kvd -n 20 5', '@kv5 1 get k37 1', '@kv5 2 get k33 1', '@grow 8', '@kv5 3 set k29 0']);
    expect(r.stdout).toContain('kvd requests=20 hits=6 misses=14 keys=6\n');
    expect(r.status).toBe(0);
  }, 180_000);

  it('lists a glob\'s usdt probes of the -c command, and refuses one that matches none without -Z', async () => {
    const r = await wdtrace(...arch, '-l', '-n', '*:::request-start', '-n', 'kv*:::table-grow', '-c', '/bin/kvd -n 3');
    expect(r.stdout.split('\n').slice(1, -1).map((l) => l.trim().split(/\s+/).slice(1).join(' '))).toEqual(['kv2 kvd serve request-start', 'kv2 kvd grow table-grow']);
    // -l without a description lists every probe, the usdt probes of the -c command's program among them.
    const all = await wdtrace(...arch, '-l', '-c', '/bin/kvd -n 3');
    expect(all.stdout.split('\n').filter((l) => /\skv2\s/.test(l)).map((l) => l.trim().split(/\s+/).slice(1).join(' '))).toEqual(['kv2 kvd serve request-start', 'kv2 kvd serve request-done', 'kv2 kvd grow table-grow']);
    const none = await wdtrace(...arch, '-n', 'kv*:::request-start', '-c', '/bin/echo');
    expect(none.stderr).toContain('probe description kv*:::request-start does not match any probes');
    expect(none.status).toBe(1);
  }, 180_000);

  it('leaves kvd\'s output unchanged with every one of its probes enabled', async () => {
    const traced = await wdtrace(...arch, '-q', '-n', 'kv$target::: { @[probename] = count(); }', '-c', '/bin/kvd -n 50');
    const untraced = await wdtrace(...arch, '-q', '-n', 'BEGIN {}', '-c', '/bin/kvd -n 50');
    expect(untraced.stdout).toBe('kvd requests=50 hits=19 misses=31 keys=16\n\n');
    expect(traced.stdout.startsWith('kvd requests=50 hits=19 misses=31 keys=16\n')).toBe(true);
    expect(traced.stdout).toMatch(/request-start\s+50\n/);
    expect(traced.stdout).toMatch(/request-done\s+50\n/);
    expect(traced.status).toBe(0);
  }, 180_000);
});
