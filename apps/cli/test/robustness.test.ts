// Programs at the limits: every failure is dtrace(1)'s, never a JavaScript
// message — sizes beyond 2^32, widths no output can hold, speculations beyond
// what can be made, options that cannot change while tracing.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const JS_MESSAGE = /BigInt|undefined|TypeError|RangeError|Invalid (string|typed array) length|out of memory/i;

describe('printf() widths', () => {
  it('stops processing as vfprintf does (EOVERFLOW) when a width is too large to print', async () => {
    const r = await wdtrace('-qn', 'BEGIN { printf("%2147483647d\\n", 1); exit(0) }');
    expect(r.stderr).toBe('dtrace: processing aborted: Value too large for defined data type\n');
    expect(r.status).toBe(1);
  });
  it('does the same for a width given as an argument', async () => {
    const r = await wdtrace('-qn', 'BEGIN { printf("%*d\\n", 1000000000, 1); exit(0) }');
    expect(r.stderr).toBe('dtrace: processing aborted: Value too large for defined data type\n');
    expect(r.status).toBe(1);
  });
});

describe('nspec', () => {
  it('refuses more speculations than an int counts, as dtrace_state_go (ENOMEM)', async () => {
    const r = await wdtrace('-x', 'nspec=4294967296', '-qn', 'BEGIN { exit(0) }');
    expect(r.stderr).toBe('dtrace: could not enable tracing: Not enough space\n');
    expect(r.status).toBe(1);
  });
  it('makes speculations as they are used, so a large nspec costs nothing up front', async () => {
    const r = await wdtrace('-x', 'nspec=100000000', '-qn', 'BEGIN { a = speculation(); b = speculation(); printf("%d %d\\n", a, b); exit(0) }');
    expect(r.stdout).toBe('1 2\n\n');
    expect(r.status).toBe(0);
  });
});

describe('sizes of 2^32 and more', () => {
  it('bcopy() to a destination that cannot hold the size faults at the destination', async () => {
    const r = await wdtrace('-qn', 'BEGIN { p = alloca(8); bcopy(p, p, 0x100000000) } BEGIN { exit(0) }');
    expect(r.stderr).toMatch(/^dtrace: error on enabled probe ID 1 \(ID 1: dtrace:::BEGIN\): invalid address \(0x7ffe[0-9a-f]+\) in action #2 at DIF offset \d+\n$/);
    expect(r.stderr).not.toMatch(JS_MESSAGE);
  });
  it('alloca() and copyin() of 2^32 bytes run out of scratch space', async () => {
    for (const call of ['alloca(0x100000000)', 'copyin(0, 0x100000000)', 'alloca(0xffffffffffffffff)']) {
      const r = await wdtrace('-qn', `BEGIN { p = ${call} } BEGIN { exit(0) }`);
      expect(r.stderr).toMatch(/out of scratch space in action #1/);
      expect(r.stderr).not.toMatch(JS_MESSAGE);
    }
  });
  it('copyout() keeps the whole size: the source faults where it ends instead of a truncated copy', async () => {
    const r = await wdtrace('-wqn', 'BEGIN { p = alloca(8); copyout(p, 0, 0x100000001) } BEGIN { exit(0) }');
    expect(r.stderr).toMatch(/invalid address \(0x7ffe[0-9a-f]+\) in action #2/);
    expect(r.stderr).not.toMatch(JS_MESSAGE);
  });
});

describe('setopt() while tracing', () => {
  it('fails for a run-time option as dtrace_setopt does and sets a dynamic one', async () => {
    const r = await wdtrace('-n', 'BEGIN { setopt("bufsize", "8k"); setopt("quiet"); printf("quiet now\\n"); exit(0) }');
    expect(r.stderr).toContain('couldn\'t set option "bufsize" to "8k": Operation illegal when tracing is active');
    // The probe line of the firing was printed before setopt() took effect, as in dt_consume_cpu.
    expect(r.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN quiet now\n\n');
    expect(r.status).toBe(0);
  });
});

describe('dynvarsize', () => {
  it('holds at least one dynamic variable however small, as dtrace_dstate_init sizes it', async () => {
    const r = await wdtrace('-x', 'dynvarsize=1', '-qn', 'BEGIN { self->x = 7; printf("%d\\n", self->x); exit(0) }');
    expect(r.stdout).toBe('7\n\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
