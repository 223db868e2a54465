// The usdt provider on booted guests of every code set, through the session
// library: a -G linked program's probes fire at their sites, an is-enabled
// site yields 1 only while its probe is enabled, and once tracing stops —
// the process still running — its text is byte for byte the file's again
// (the probe sites' no-ops and the is-enabled sites' zeroes both back).
// A provider glob enables the probes of processes that exec a program with
// USDT probes while tracing runs, and its fork/exec watch leaves the
// kernel's text as it was.
import { readFileSync } from 'node:fs';
import { defaultOptions } from '@wdtrace/dtrace-core';
import { PT_LOAD, parseElf, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { guestSession } from './guest-support.js';

const quiet = { options: { ...defaultOptions(), quiet: true } };
const FIXTURES = new URL('../../../apps/cli/test/fixtures/usdt/', import.meta.url);

describe.each([
  { set: 'x86_64', isa: 'x86_64' as Isa, thumb: false },
  { set: 'arm', isa: 'arm' as Isa, thumb: false },
  { set: 'thumb', isa: 'arm' as Isa, thumb: true },
])('usdt on $set', ({ set, isa, thumb }) => {
  it("fires, then restores the process's text to the file's bytes while it still runs", async () => {
    const data = new Uint8Array(readFileSync(new URL(`shop-${set}`, FIXTURES)));
    const { session, collected } = await guestSession({ isa, thumb, command: ['/host/shop'], files: [{ path: '/host/shop', data, mode: 0o755 }] });
    // Tracing stops in the sleep after the first order, with order-start's is-enabled site patched and its sites trapping.
    const program = session.compile('shop$target:::order-start { printf("order %d\\n", arg0); } shop$target:::tick {} syscall::nanosleep:entry /pid == $target/ { exit(0); }');
    await session.run(program, quiet);
    expect(collected.both).toBe('order 1\n');
    expect(collected.guestOut).toMatch(/^order apple\n/);
    const root = session.guest!.view.processRoot(2);
    expect(root).toBeDefined();
    const elf = parseElf(data);
    let compared = 0;
    for (const ph of elf.programHeaders) {
      if (ph.type !== PT_LOAD || (ph.flags & 1) === 0) continue; // PF_X
      expect(session.machine!.readUserText(root!, ph.vaddr, ph.filesz)).toEqual(data.subarray(ph.offset, ph.offset + ph.filesz));
      compared += ph.filesz;
    }
    expect(compared).toBeGreaterThan(100);
  }, 120_000);
});

describe.each([
  { set: 'x86_64', isa: 'x86_64' as Isa, thumb: false },
  { set: 'arm', isa: 'arm' as Isa, thumb: false },
])('usdt provider globs on $set', ({ isa, thumb }) => {
  it('enable the probes of a server the shell starts later, and leave the kernel text as it was once tracing ends', async () => {
    const { session, collected } = await guestSession({ isa, thumb, command: ['/bin/sh', '-c', 'kvd -n 7; kvd -n 2'] });
    // -Z: kv*::: matches nothing while only the shell runs; each kvd's provider comes with its exec.
    const program = session.compile('kv*:::request-done { @[probeprov] = count(); }', { zdefs: true });
    const proc = session.machine!.kernelModules().flatMap((m) => m.sdtSites).filter((s) => s.provider === 'proc');
    const kernelText = () => proc.map((s) => session.machine!.readText(s.address, 8).slice());
    const before = kernelText();
    const run = await session.run(program, { options: { ...defaultOptions(), quiet: true, zdefs: true } });
    expect(collected.guestOut).toBe('kvd requests=7 hits=2 misses=5 keys=2\nkvd requests=2 hits=0 misses=2 keys=0\n');
    expect(run.aggregations.flatMap((a) => a.rows.map((r) => [r.keys.map(String).join(','), Number(r.value)]))).toEqual([['kv4', 2], ['kv3', 7]]);
    expect(kernelText()).toEqual(before);
  }, 120_000);
});
