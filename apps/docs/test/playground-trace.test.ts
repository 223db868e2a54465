// The playground's wdtrace (playground/trace.ts) in Node, on the guest
// images the packages embed: what a page cannot do — run a shell for
// system(), write a file for freopen() — is said on standard error, and
// the rest of the trace goes on; bad options fail as the CLI's do.
import { describe, expect, it } from 'vitest';
import { defaultImages } from '@wdtrace/kernel';
import { trace, type TraceRequest } from '../playground/trace.js';

/** Runs the request as the page does; the page asks to stop after `stopAfterMs`, or once the output satisfies `stopWhen`. */
async function run(request: Partial<TraceRequest> & Pick<TraceRequest, 'source'>, stopAfterMs = Infinity, stopWhen: (text: string) => boolean = () => false) {
  const started = Date.now();
  let text = '';
  const errorLines: number[] = [];
  let enabled = 0;
  const loaded: string[] = [];
  const images = async (isa: 'x86_64' | 'arm') => {
    loaded.push(isa);
    return defaultImages(isa);
  };
  const status = await trace({ isa: 'x86_64', command: '', cpus: 1, options: '', ...request }, images, {
    write: (_stream, t) => (text += t),
    errorLines: (lines) => errorLines.push(...lines),
    enabled: () => enabled++,
    aggregations: () => {},
    pause: async () => Date.now() - started >= stopAfterMs || stopWhen(text),
  });
  return { text, status, errorLines, enabled, loaded };
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
    // One range of CPUs, the CLI's, with the guest and without.
    expect(await run({ source: 'BEGIN { exit(0); }', cpus: 9 })).toMatchObject({ status: 2, text: "dtrace: invalid CPU count '9': a machine has 1 to 8 CPUs\n" });
    expect(await run({ source: 'BEGIN { exit(0); }', isa: 'none', cpus: 64 })).toMatchObject({ status: 2, text: "dtrace: invalid CPU count '64': a machine has 1 to 8 CPUs\n" });
    expect(await run({ source: 'BEGIN { exit(0); }', command: '/bin/true', options: "--boot '/bin/cpubound 1 &'" })).toMatchObject({
      status: 2,
      text: 'dtrace: --boot starts a running system; it cannot be combined with -c\n',
    });
    // As in the CLI, the duration is read when tracing starts, after the notice.
    expect(await run({ source: 'BEGIN { exit(0); }', options: '--run-for soon' })).toMatchObject({
      status: 2,
      text: "dtrace: description 'BEGIN ' matched 1 probe\ndtrace: invalid duration 'soon': expected a number with an optional unit (ns, us, ms, s, m, h)\n",
    });
  }, 120_000);

  it('runs without a guest when no ISA is chosen and the program needs none, in real time, until it exits or is stopped', async () => {
    const idle = await run({ source: 'BEGIN { printf("hello\\n"); exit(0); }', isa: 'none', cpus: 3, options: '-q' });
    expect(idle).toEqual({ status: 0, text: 'hello\n\n', enabled: 1, errorLines: [], loaded: [] });
    // tick-1s on the idle machine waits a real second, as dtrace(1) does (a guest's virtual time runs ahead).
    const started = Date.now();
    expect(await run({ source: 'tick-1s { exit(0); }', isa: 'none', options: '-q' })).toMatchObject({ status: 0, text: '\n' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // A program that never exits ends when the page stops it (else this test would time out); END fires.
    expect(await run({ source: 'tick-10s { printf("tick\\n"); } END { printf("end\\n"); }', isa: 'none', options: '-q' }, 300)).toMatchObject({ status: 0, text: 'end\n\n' });
    // Without an ISA, a kernel probe or a command boots the x86-64 guest, as the CLI does without --arch.
    expect(await run({ source: 'syscall::exit_group:entry { printf("%s\\n", execname); }', isa: 'none', command: '/bin/true', options: '-q' })).toMatchObject({ text: 'true\n\n', loaded: ['x86_64'] });
  }, 120_000);

  it('traces a running system without a command, as the CLI does: booted, idle or running --boot\'s work, until --run-for or Stop', async () => {
    // BEGIN fires on the booted kernel; the guest stays up for every tick; its console is not in the trace.
    const up = await run({ source: 'BEGIN { printf("%d cpus\\n", `nr_cpus_online); } tick-1s { printf("tick\\n"); }', cpus: 2, options: '-q --run-for 2s' });
    expect(up).toMatchObject({ status: 0, text: '2 cpus\ntick\ntick\n\n' });
    // --boot's work runs on both CPUs, each CPU's second as long as on one CPU.
    const busy = await run({ source: 'profile-97 /execname == "cpubound"/ { @[cpu] = count(); }', isa: 'arm', cpus: 2, options: "-q --boot '/bin/cpubound 100000 & /bin/cpubound 100000 &' --run-for 500ms" });
    expect(busy.status).toBe(0);
    const counts = busy.text.trim().split('\n').map((l) => Number(l.trim().split(/\s+/)[1]));
    expect(counts).toHaveLength(2);
    for (const n of counts) expect(n).toBeGreaterThanOrEqual(44);
    // Without --run-for it runs in real time until the page stops it: END fires.
    let first = 0;
    const stopped = await run({ source: 'tick-500ms { printf("tick\\n"); } END { printf("end\\n"); }', options: '-q' }, Infinity, (text) => {
      if (text.startsWith('tick\n') && first === 0) first = Date.now();
      return text.includes('tick\ntick\ntick\n');
    });
    expect(stopped.status).toBe(0);
    expect(stopped.text).toMatch(/^(tick\n){3,}end\n\n$/);
    // The ticks come in real time: the buffers are consumed once a second (switchrate).
    expect(Date.now() - first).toBeGreaterThanOrEqual(900);
  }, 300_000);

  it('gives the lines of the errors to mark', async () => {
    const r = await run({ source: 'BEGIN\n{\n\ttrace(nosuchvariable);\n}\n' });
    expect(r.status).toBe(1);
    expect(r.errorLines).toEqual([3]);
    expect(r.text).toMatch(/line 3: failed to resolve nosuchvariable: Unknown variable name\n$/);
  }, 120_000);
});
