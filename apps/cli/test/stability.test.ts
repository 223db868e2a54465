// dtrace -v: each program's stability report (exec_prog), its minimum probe
// description and statement attributes computed as dtrace_program_info.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'wdtrace-stability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const report = (kind: string, name: string, desc: [string, string, string], stmt: [string, string, string]): string =>
  `\nStability attributes for ${kind} ${name}:\n\n\tMinimum Probe Description Attributes\n\t\tIdentifier Names: ${desc[0]}\n\t\tData Semantics:   ${desc[1]}\n\t\tDependency Class: ${desc[2]}\n` +
  `\n\tMinimum Statement Attributes\n\t\tIdentifier Names: ${stmt[0]}\n\t\tData Semantics:   ${stmt[1]}\n\t\tDependency Class: ${stmt[2]}\n\n`;

describe('dtrace -v stability reports', () => {
  it('reports a description without a provider as Unstable and curthread\'s Private data', async () => {
    const r = await wdtrace('-q', '-v', '-n', 'BEGIN { trace(curthread); exit(0); }');
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith(report('description', 'BEGIN ', ['Unstable', 'Unstable', 'Common'], ['Stable', 'Private', 'Common']))).toBe(true);
  });
  it('takes the named fields\' provider attributes and the context variables\' provider attributes, one report per program', async () => {
    const r = await wdtrace('-v', '-n', 'dtrace:::BEGIN { exit(0); }', '-n', 'profile:::tick-1s /probefunc != ""/ { trace(htons(1)); }');
    expect(r.stderr).toBe("dtrace: description 'dtrace:::BEGIN ' matched 1 probe\ndtrace: description 'profile:::tick-1s ' matched 1 probe\n");
    expect(r.stdout.startsWith(
      report('description', 'dtrace:::BEGIN ', ['Stable', 'Stable', 'Common'], ['Stable', 'Stable', 'Common']) +
        // profile's function field is Private/Private/Unknown; htons() is Evolving.
        report('description', 'profile:::tick-1s ', ['Evolving', 'Evolving', 'Common'], ['Private', 'Private', 'Unknown']),
    )).toBe(true);
  });
  it('with -e: reports each statement\'s probe description and its probe\'s attributes (info_stmt), without enabling', async () => {
    const r = await wdtrace('-e', '-v', '-n', 'BEGIN, profile:::tick-1s { exit(0); }');
    expect(r.stderr).toBe('');
    const info = (desc: string, a: string, arga: string): string => {
      const lines = (x: string): string => {
        const [n, d, c] = x.split('/');
        return `\t\tIdentifier Names: ${n}\n\t\tData Semantics:   ${d}\n\t\tDependency Class: ${c}\n`;
      };
      return `\n${desc}\n\n\tProbe Description Attributes\n${lines(a)}\n\tArgument Attributes\n${lines(arga)}\n\tArgument Types\n\t\tNone\n\n`;
    };
    expect(r.stdout).toBe(
      report('description', 'BEGIN, profile:::tick-1s ', ['Unstable', 'Unstable', 'Common'], ['Stable', 'Stable', 'Common']).slice(0, -1) +
        info(':::BEGIN', 'Unstable/Unstable/Common', 'Unstable/Unstable/Common') +
        info('profile:::tick-1s', 'Evolving/Evolving/Common', 'Evolving/Evolving/Common'),
    );
  });
  it('uses Evolving functions and writes the report to the -o file', async () => {
    const out = join(dir, 'v.txt');
    const r = await wdtrace('-q', '-v', '-o', out, '-n', 'dtrace:::BEGIN { trace(ntohl(1)); exit(0); }');
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8').startsWith(report('description', 'dtrace:::BEGIN ', ['Stable', 'Stable', 'Common'], ['Evolving', 'Evolving', 'Common']))).toBe(true);
  });
});

describe('dtrace -v on the guest: kernel symbols and types the clauses name', () => {
  it('lowers a clause naming a kernel symbol or a kernel type to Private/Private/Unknown; built-in types leave it Stable', async () => {
    const r = await wdtrace(
      '-v',
      '-n', 'fbt::sys_write:entry /pid == $target/ { trace(`nr_cpus_online); }',
      '-n', 'fbt::sys_write:entry /pid == $target/ { trace((struct task_struct *)arg0); }',
      '-n', 'fbt::sys_write:entry /pid == $target/ { trace((uint64_t)arg0 + sizeof (int)); }',
      '-c', '/bin/true',
    );
    const name = 'fbt::sys_write:entry ';
    // fbt's function field is Private/Private/ISA.
    const fbt: [string, string, string] = ['Private', 'Private', 'ISA'];
    expect(r.stdout.startsWith(
      report('description', name, fbt, ['Private', 'Private', 'Unknown']) +
        report('description', name, fbt, ['Private', 'Private', 'Unknown']) +
        report('description', name, fbt, ['Stable', 'Stable', 'Common']),
    )).toBe(true);
    expect(r.status).toBe(0);
  }, 120_000);
});
