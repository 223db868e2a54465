// SMP scheduling on the machine of each ISA: per-CPU run queues with fork
// placement, idle and periodic balancing spread fork-heavy and CPU-bound work
// over the CPUs. Measured the way a user would with DTrace: the kernel's
// sched:on-cpu sites are enabled by hand and their firings counted per CPU
// (counts, not timings); nice changes a task's share of one CPU.
import { ArmEmulation, DTRACE_BREAKPOINT } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import { ARM_SDT_NOP, ISAS, type InvopResult, type Isa, type Machine, type SdtSite } from '../src/index.js';
import { guestMachine } from './machine-support.js';

const le32 = (w: number): Uint8Array => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);

const ENABLE: Readonly<Record<Isa, (site: SdtSite) => { patch: Uint8Array; result: InvopResult }>> = {
  // lock nopl 0x0(%rax): #UD; resume after the site.
  x86_64: (s) => ({ patch: Uint8Array.of(0xf0, 0x0f, 0x1f, 0x40, 0x00), result: { kind: 'resume', pc: s.address + 5n } }),
  // The DTrace breakpoint over the nop; the nop then runs displaced.
  arm: () => ({ patch: le32((DTRACE_BREAKPOINT | 0xe) >>> 0), result: { kind: 'emulate', code: ArmEmulation.ANY, word: ARM_SDT_NOP } }),
};

/** Enables every kernel site of sched:<probe>; returns the firings per CPU. */
function countPerCpu(m: Machine, isa: Isa, probe: string, cpus: number): number[] {
  const counts = new Array<number>(cpus).fill(0);
  const sites = m.sdtSites().filter((s) => s.module === 'kernel' && s.provider === 'sched' && s.probe === probe);
  expect(sites.length).toBeGreaterThan(0);
  const byAddress = new Map<bigint, InvopResult>();
  for (const s of sites) {
    const { patch, result } = ENABLE[isa](s);
    m.writeText(s.address, patch);
    byAddress.set(s.address, result);
  }
  m.addInvopHandler((trap) => {
    const result = byAddress.get(trap.pc);
    if (!result) return undefined;
    counts[trap.cpu]!++;
    return result;
  });
  return counts;
}

async function onCpuCounts(isa: Isa, command: string, cpus: number): Promise<{ counts: number[]; output: string; status: number | undefined }> {
  const { machine, output } = await guestMachine(isa, { cmdline: 'quiet', cpus, args: ['/bin/sh', '-c', command] });
  const counts = countPerCpu(machine, isa, 'on-cpu', cpus);
  const result = await machine.runUntilPowerOff({ instructions: 3_000_000_000 });
  return { counts, output: output(), status: result.kind === 'poweroff' ? result.status : undefined };
}

describe.each(ISAS)('%s machine: SMP scheduling', (isa) => {
  it('forkheavy with --cpus 4 spreads over every CPU', async () => {
    const r = await onCpuCounts(isa, 'forkheavy 60', 4);
    expect(r.output).toBe('forkheavy children=60 status_sum=1770\n');
    expect(r.status).toBe(0);
    const total = r.counts.reduce((a, b) => a + b, 0);
    for (const c of r.counts) expect(c / total, `on-cpu per CPU ${r.counts.join(' ')}`).toBeGreaterThanOrEqual(0.1);
  });

  it('four CPU-bound processes on 4 CPUs each get a CPU', async () => {
    // A CPU-bound task keeps its CPU while nothing else waits there, so it
    // fires on-cpu rarely: the measure is the instructions each CPU retired
    // (an idle CPU halts and retires next to none).
    const { machine, output } = await guestMachine(isa, { cmdline: 'quiet', cpus: 4, args: ['/bin/sh', '-c', 'for i in 1 2 3 4; do cpubound 40 > /dev/null & done; wait; echo done'] });
    const result = await machine.runUntilPowerOff({ instructions: 3_000_000_000 });
    expect(result.kind).toBe('poweroff');
    expect(output()).toBe('done\n');
    const retired = [0, 1, 2, 3].map((cpu) => machine.retired(cpu));
    const total = retired.reduce((a, b) => a + b, 0);
    for (const n of retired) expect(n / total, `instructions per CPU ${retired.join(' ')}`).toBeGreaterThanOrEqual(0.15);
  });

  it('nice gives a task a smaller share of a CPU', async () => {
    // Two spinners on one CPU, one at nice 19: in the same virtual time the
    // favoured one counts further.
    const { machine, output } = await guestMachine(isa, {
      cmdline: 'quiet',
      cpus: 1,
      args: ['/bin/sh', '-c', 'nice -n 19 spin 300 > low.txt & spin 300 > normal.txt & wait; cat low.txt normal.txt'],
    });
    const result = await machine.runUntilPowerOff({ instructions: 3_000_000_000 });
    expect(result.kind).toBe('poweroff');
    const [low, normal] = output().trim().split('\n').map((l) => Number(/count=(\d+)/.exec(l)?.[1]));
    expect(low).toBeGreaterThan(0);
    expect(normal! / low!).toBeGreaterThanOrEqual(1.5);
  });
});
