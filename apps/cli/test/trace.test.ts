import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));


describe('tst.cli-begin: probe descriptions with the default action', () => {
  it('traces BEGIN and END with the probe line and the matched notices', async () => {
    const r = await wdtrace('-n', 'BEGIN', '-n', 'END', '--run-for', '1s');
    expect(r.stderr).toBe("dtrace: description 'BEGIN' matched 1 probe\ndtrace: description 'END' matched 1 probe\n");
    expect(r.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN \n  0      2                             :END \n\n');
    expect(r.status).toBe(0);
  });
  it('fires tick and profile probes on the virtual clock, on every CPU for profile', async () => {
    const r = await wdtrace('-n', 'profile:::tick-1s', '--run-for', '2500ms');
    expect(r.stdout.split('\n').filter((l) => l.includes('tick-1s'))).toHaveLength(2);
    const p = await wdtrace('-n', 'profile-1hz', '--cpus', '2', '--run-for', '1s');
    expect(p.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0     17                     :profile-1hz \n  1     17                     :profile-1hz \n\n');
  });
  it('accepts -P, -f, -m and -i specifications', async () => {
    const r = await wdtrace('-P', 'dtrace', '--run-for', '0s');
    expect(r.stderr).toBe("dtrace: description 'dtrace' matched 3 probes\n");
    const i = await wdtrace('-i', '1', '--run-for', '0s');
    expect(i.stderr).toBe("dtrace: description '1' matched 1 probe\n");
    expect(i.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN \n\n');
    // -e compiles and matches without enabling, and then reports nothing (exec_prog's dtrace_program_info).
    const e = await wdtrace('-P', 'dtrace', '-e');
    expect(e).toEqual({ status: 0, stdout: '', stderr: '' });
  });
  it('is quiet under -q and -x quiet', async () => {
    const r = await wdtrace('-q', '-n', 'BEGIN', '--run-for', '1s');
    expect(r.stdout).toBe('\n');
    expect(r.stderr).toBe('');
  });
});

describe('tst.cli-shared-globals: every -n and -s is compiled into one dtrace handle', () => {
  it('sees a global an earlier -n declared or assigned, with its type', async () => {
    const r = await wdtrace('-q', '-n', 'int done; BEGIN { done = 1; }', '-n', 'BEGIN /done/ { printf("done %d\\n", done); }', '-n', 'BEGIN { s = "str"; }', '-n', 'BEGIN { printf("%s\\n", s); exit(0); }');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('done 1\nstr\n\n');
    expect(r.status).toBe(0);
  });
  it('counts and reports each -n on its own: its matched probes, its errors at its own lines', async () => {
    const ok = await wdtrace('-n', 'int done;', '-n', 'BEGIN, END /!done/ { done = 1; }', '--run-for', '0s');
    expect(ok.stderr).toBe("dtrace: description 'int done' matched 0 probes\ndtrace: description 'BEGIN, END ' matched 2 probes\n");
    const bad = await wdtrace('-n', 'BEGIN { s = "str"; }', '-n', 'BEGIN\n{ s = 1; }');
    // Every specification is compiled before any is enabled: the error comes alone.
    expect(bad.stderr).toBe('dtrace: invalid probe specifier BEGIN\n{ s = 1; }: line 2: operands have incompatible types: "string" = "int"\n');
    expect(bad.status).toBe(1);
  });
});

describe('err.cli: errors and exit statuses like dtrace(1)', () => {
  it('refuses descriptions that match nothing unless -Z', async () => {
    const r = await wdtrace('-n', 'nosuch:::probe');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^dtrace: invalid probe specifier nosuch:::probe: .*probe description nosuch:::probe does not match any probes\n$/);
    const z = await wdtrace('-Z', '-n', 'nosuch:::probe', '-n', 'BEGIN', '--run-for', '0s');
    expect(z.status).toBe(0);
    expect(z.stderr).toBe("dtrace: description 'nosuch:::probe' matched 0 probes\ndtrace: description 'BEGIN' matched 1 probe\n");
  });
  it('rejects bad -x options and bad buffer policies', async () => {
    const r = await wdtrace('-x', 'bufpolicy=spill', '-n', 'BEGIN');
    expect(r.status).toBe(1);
    // dtrace(1): dfatal("failed to set -x %s", name) with the library's reason; the value is not repeated.
    expect(r.stderr).toBe('dtrace: failed to set -x bufpolicy: Invalid value for specified option\n');
    const n = await wdtrace('-x', 'nosuchoption=1', '-n', 'BEGIN');
    expect(n).toMatchObject({ status: 1, stderr: 'dtrace: failed to set -x nosuchoption: Invalid option name\n' });
    const b = await wdtrace('-b', '12q', '-n', 'BEGIN');
    expect(b).toMatchObject({ status: 1, stderr: 'dtrace: failed to set -b 12q: Invalid value for specified option\n' });
  });
  it('needs a probe specification', async () => {
    const r = await wdtrace();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Usage: wdtrace /);
    // Options but no probe description: dfatal("no probes specified").
    const q = await wdtrace('-q');
    expect(q).toEqual({ status: 1, stdout: '', stderr: 'dtrace: no probes specified\n' });
  });
});

describe('tst.cli-list: -l', () => {
  it('lists probes in dtrace(1) columns', async () => {
    const r = await wdtrace('-l', '-P', 'dtrace');
    expect(r.stdout).toBe(
      '   ID   PROVIDER            MODULE                          FUNCTION NAME\n' +
        '    1     dtrace                                                     BEGIN\n' +
        '    2     dtrace                                                     END\n' +
        '    3     dtrace                                                     ERROR\n',
    );
    const t = await wdtrace('-l', '-n', 'tick-5s');
    expect(t.stdout.split('\n')[1]).toBe('   17    profile                                                     tick-5s');
  });
  it('prints the D version with -V', async () => {
    expect((await wdtrace('-V')).stdout).toBe('dtrace: Sun D 1.13\n');
  });
});

describe('tst.cli-output: -o and --json through the executable', () => {
  it('appends trace output to a file and writes JSON lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wdtrace-'));
    const file = join(dir, 'out.txt');
    const r = spawnSync(process.execPath, [bin, '-o', file, '-n', 'BEGIN', '--run-for', '1s'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN \n\n');
    const j = spawnSync(process.execPath, [bin, '--json', '-n', 'tick-1s', '--run-for', '1s'], { encoding: 'utf8' });
    expect(JSON.parse(j.stdout.trim())).toEqual({ cpu: 0, id: 17, epid: 1, probe: 'profile:::tick-1s', timestamp: '1000000000', output: 'CPU     ID                    FUNCTION:NAME\n  0     17                         :tick-1s \n' });
  });
});

describe('tst.cli-list-verbose: -lv', () => {
  it('prints stability attributes and argument types like dtrace -lv', async () => {
    const r = await wdtrace('-lv', '-n', 'BEGIN');
    expect(r.stdout).toBe(
      '   ID   PROVIDER            MODULE                          FUNCTION NAME\n' +
        '    1     dtrace                                                     BEGIN\n' +
        // dt_probe_info leaves out the attributes of the empty module and function fields.
        '\n\tProbe Description Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n' +
        '\n\tArgument Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n' +
        '\n\tArgument Types\n\t\tNone\n\n',
    );
    const t = await wdtrace('-lv', '-n', 'tick-1s');
    expect(t.stdout).toContain('\n\tProbe Description Attributes\n\t\tIdentifier Names: Evolving\n\t\tData Semantics:   Evolving\n\t\tDependency Class: Common\n');
  });
});
