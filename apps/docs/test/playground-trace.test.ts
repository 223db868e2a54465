// The playground's wdtrace (playground/trace.ts) in Node, on the guest
// images the packages embed: what a page cannot do — run a shell for
// system(), write a file for freopen() — is said on standard error, and
// the rest of the trace goes on; bad options fail as the CLI's do.
import { describe, expect, it } from 'vitest';
import { defaultImages } from '@wdtrace/kernel';
import { trace, type TraceRequest } from '../playground/trace.js';

async function run(request: Partial<TraceRequest> & Pick<TraceRequest, 'source'>) {
  let text = '';
  const errorLines: number[] = [];
  let enabled = 0;
  const status = await trace({ isa: 'x86_64', command: '', cpus: 1, options: '', ...request }, defaultImages(request.isa ?? 'x86_64'), {
    write: (_stream, t) => (text += t),
    errorLines: (lines) => errorLines.push(...lines),
    enabled: () => enabled++,
    aggregations: () => {},
    pause: async () => false,
  });
  return { text, status, errorLines, enabled };
}

describe('the playground\'s wdtrace', () => {
  it('says system() and freopen() cannot be done in a page, and traces on', async () => {
    const r = await run({ source: 'BEGIN { printf("before\\n"); system("ls /"); freopen("/tmp/out"); printf("after\\n"); exit(0); }', options: '-qw' });
    expect(r.status).toBe(0);
    expect(r.enabled).toBe(1);
    expect(r.text).toBe(
      'before\ndtrace: system("ls /") not run: the playground has no shell\n' +
        'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn\'t freopen() "/tmp/out": Read-only file system\n' +
        'after\n\n',
    );
  }, 120_000);

  it('refuses a command the guest does not have, and options it cannot take', async () => {
    expect(await run({ source: 'BEGIN { exit(0); }', command: '/bin/nothing here' })).toMatchObject({ status: 2, text: 'dtrace: failed to execute /bin/nothing: no such file in the guest file system\n' });
    expect(await run({ source: 'BEGIN { exit(0); }', options: '-o file' })).toMatchObject({ status: 2, text: 'dtrace: -o: output goes to the page\n' });
    expect(await run({ source: 'BEGIN { exit(0); }', cpus: 9 })).toMatchObject({ status: 2, text: "dtrace: invalid CPU count '9': the guest machine has 1 to 8 CPUs\n" });
    // As in the CLI, the duration is read when tracing starts, after the notice.
    expect(await run({ source: 'BEGIN { exit(0); }', options: '--run-for soon' })).toMatchObject({
      status: 2,
      text: "dtrace: description 'BEGIN ' matched 1 probe\ndtrace: invalid duration 'soon': expected a number with an optional unit (ns, us, ms, s, m, h)\n",
    });
  }, 120_000);

  it('gives the lines of the errors to mark', async () => {
    const r = await run({ source: 'BEGIN\n{\n\ttrace(nosuchvariable);\n}\n' });
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual([3]);
    expect(r.text).toMatch(/line 3: failed to resolve nosuchvariable: Unknown variable name\n$/);
  }, 120_000);
});
