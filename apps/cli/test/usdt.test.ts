// The usdt provider from the command line, on the three code sets: the
// probes of a -c command's program (linked after wdtrace -G) are listed with
// -l, fire at their sites with their arguments, args[] is translated by the
// provider definition's translators, an is-enabled site yields 1 only while
// its probe is enabled, and the program's output is otherwise unchanged.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const FIXTURES = new URL('./fixtures/usdt/', import.meta.url).pathname;

describe.each([
  { set: 'x86_64', arch: ['--arch', 'x86_64'] },
  { set: 'arm', arch: ['--arch', 'arm'] },
  { set: 'thumb', arch: ['--thumb'] },
])('usdt probes of a $set program', ({ set, arch }) => {
  const exe = `${FIXTURES}shop-${set}`;

  it('lists the probes of provider$target with -l -c', async () => {
    const r = await wdtrace(...arch, '-l', '-c', exe, '-n', 'shop$target:::', '-n', 'shop$target:a.out:_start:');
    const rows = r.stdout.split('\n').slice(1, -1).map((l) => l.trim().split(/\s+/).slice(1).join(' '));
    expect(rows).toEqual([`shop2 shop-${set} place order-start`, `shop2 shop-${set} place order-done`, `shop2 shop-${set} _start tick`]);
    expect(r.status).toBe(0);
  }, 120_000);

  it('fires with the arguments of each site, args[] translated', async () => {
    const r = await wdtrace(
      ...arch,
      '-q',
      '-n', 'shop$target:::order-start { printf("start %d %s\\n", arg0, copyinstr(arg1)); }',
      '-n', 'shop$target:::order-done { printf("done %d %d %s\\n", args[0]->oi_id, args[0]->oi_total, args[0]->oi_item); }',
      '-n', 'shop$target:::tick { @ticks[probefunc] = count(); }',
      '-c', exe,
    );
    // order-start is enabled: its is-enabled site yields 1 and the program says "checked".
    expect(r.stdout).toBe('order apple\norder pear\norder fig\nchecked\nstart 1 apple\ndone 1 20 apple\nstart 2 pear\ndone 2 30 pear\nstart 3 fig\ndone 3 40 fig\n\n  _start                                                            3\n');
    expect(r.status).toBe(0);
  }, 120_000);

  it('leaves is-enabled sites yielding 0 while their probe is disabled', async () => {
    const r = await wdtrace(...arch, '-q', '-n', 'shop$target:::tick { @ = count(); }', '-c', exe);
    expect(r.stdout).toBe('order apple\norder pear\norder fig\nunchecked\n\n                3\n');
    const untraced = await wdtrace(...arch, '-q', '-n', 'BEGIN {}', '-c', exe);
    expect(untraced.stdout).toBe('order apple\norder pear\norder fig\nunchecked\n\n');
  }, 120_000);
});
