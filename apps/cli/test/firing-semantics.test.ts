// How one firing runs its clauses and what it leaves in the buffers, as
// illumos dtrace_probe and dtrace_ecb_resize decide, and what dtrace(1)
// reports about it: D through the compiler, the framework and the consumer.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

describe('exit() and the clauses after it', () => {
  it('stops the later BEGIN clauses of the same firing', async () => {
    const r = await wdtrace('-n', 'BEGIN { trace(1); exit(0) } BEGIN { trace(2) } END { trace(3) }');
    expect(r.stdout).toBe(
      'CPU     ID                    FUNCTION:NAME\n' +
        '  0      1                           :BEGIN         1\n' +
        '  0      2                             :END         3\n' +
        '\n',
    );
    expect(r.status).toBe(0);
  });
  it('stops the later clauses of a tick firing but finishes the exiting clause', async () => {
    const r = await wdtrace('-qn', 'BEGIN { i = 0 } tick-10ms { i = i + 1 } tick-10ms /i == 3/ { printf("exit\\n"); exit(0); printf("same clause\\n") } tick-10ms { printf("%d\\n", i) }');
    expect(r.stdout).toBe('1\n2\nexit\nsame clause\n\n');
    expect(r.status).toBe(0);
  });
});

describe('clauses that record nothing', () => {
  it('prints no probe line for clauses of only commit(), discard(), chill() or raise()', async () => {
    const r = await wdtrace('-wn', 'BEGIN { discard(0) } BEGIN { commit(0) } BEGIN { chill(0) } BEGIN { exit(0) }');
    expect(r.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN \n\n');
    expect(r.status).toBe(0);
  });
});

describe('matched N probes', () => {
  it('counts each clause\'s matches, as dtrace_enabling_match adds them', async () => {
    const r = await wdtrace('-n', 'BEGIN { } BEGIN, END { } END { }', '-n', 'BEGIN { exit(0) }');
    expect(r.stderr).toBe(`dtrace: description 'BEGIN ' matched 4 probes\ndtrace: description 'BEGIN ' matched 1 probe\n`);
    expect(r.status).toBe(0);
  });
});

describe('aggregations at exit and at the limits of int64', () => {
  it('printa() in the exiting firing sees every value aggregated before it, whatever aggrate', async () => {
    const r = await wdtrace('-qn', 'BEGIN { i = 100 } tick-10ms /i < 500/ { @a = max(i); i += 100 } tick-10ms /i == 500/ { printa(@a); exit(0) }');
    expect(r.stdout).toBe('\n              400\n\n');
    expect(r.status).toBe(0);
  });
  it('wraps histogram bucket counts as int64_t', async () => {
    const r = await wdtrace('-qn', 'BEGIN { x = 0x7fffffffffffffff; @q = quantize(1, x); @q = quantize(1); @l = lquantize(1, 0, 10, 1, x); @l = lquantize(1, 0, 10, 1); exit(0) }');
    const rows = r.stdout.split('\n').filter((l) => /^\s+1 /.test(l));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.trim().split(/\s+/).pop()).toBe('-9223372036854775808');
    expect(r.status).toBe(0);
  });
});

describe('profile probes on a machine with no guest', () => {
  it('give the idle loop as arg0 (the kernel pc) and 0 as arg1 (no user pc)', async () => {
    const r = await wdtrace('-qn', 'tick-1 { printf("%a %d %d\\n", arg0, arg0 != 0, arg1); exit(0) }');
    expect(r.stdout).toBe('kernel`idle 1 0\n\n');
    expect(r.status).toBe(0);
  });
});

describe('printa() of aggregations whose keys differ', () => {
  it('is refused at compile time as dt_printa_validate refuses it, with no JavaScript error', async () => {
    const r = await wdtrace('-qn', 'BEGIN { @a[1, "", 2] = count(); @b[1, 2, ""] = count(); printa(@a, @b); exit(0) }');
    expect(r.stderr).not.toMatch(/BigInt|undefined|TypeError/);
    expect(r.stderr).toContain('printa( ): @b[ ] key #2 is incompatible with @a:');
    expect(r.status).toBe(1);
  });
});
