// Safety of the kernel providers on a booted guest, with real D programs:
// with every fbt probe, every sdt/proc/sched/io probe, or every syscall
// probe enabled, the guest workloads print exactly what they print untraced
// and exit with the same statuses, on one and two CPUs of each ISA (ARM's
// guest also as its Thumb-2 build); and once
// the session has ended the kernel's text (every executable section of the
// image and of the hello module) is byte for byte what it was before.
import { defaultOptions } from '@wdtrace/dtrace-core';
import { SHF_EXECINSTR, SHT_PROGBITS, defaultImages, parseElf, type Isa, type Machine } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { guestSession } from './guest-support.js';

// The workloads, each followed by its exit status, in one shell so one boot runs them all.
const WORKLOADS = [
  "echo a | wc -c; ls /etc; cat /etc/motd",
  '/bin/syscallheavy 200',
  '/bin/forkheavy 5 exec',
  '/bin/cpubound 1',
];
const SCRIPT = WORKLOADS.map((w, i) => `${w}; echo w${i} exit $?`).join('; ');
/** Enough for every workload on either ISA with every probe enabled; a hang would stop here. */
const INSTRUCTION_LIMIT = 3_000_000_000;

const PROGRAMS: Record<string, string> = {
  fbt: 'fbt::: { @[probename] = count(); }',
  sdt: 'sdt:::, proc:::, sched:::, io::: { @[probeprov, probename] = count(); }',
  syscall: 'syscall::: { @[probefunc, probename] = count(); }',
};

/** Every executable section of the kernel image and of each loaded module: address and live bytes. */
function kernelText(machine: Machine): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const s of machine.kernel.sections) {
    if (s.type !== SHT_PROGBITS || (s.flags & SHF_EXECINSTR) === 0 || s.size === 0) continue;
    out.set(`kernel ${s.name} 0x${s.addr.toString(16)}`, machine.readText(s.addr, s.size));
  }
  const modules = defaultImages(machine.isa, { thumb: machine.thumb }).modules;
  for (const name of machine.modules.loaded) {
    const linked = machine.modules.module(name)!;
    const object = parseElf(new Uint8Array(modules[name]!));
    for (const s of object.sections) {
      if (s.type !== SHT_PROGBITS || (s.flags & SHF_EXECINSTR) === 0 || s.size === 0) continue;
      const addr = linked.sectionAddresses.get(s.index)!;
      out.set(`${name} ${s.name} 0x${addr.toString(16)}`, machine.readText(addr, s.size));
    }
  }
  return out;
}

/** An image set: an ISA's guest, or `arm-thumb`, ARM's Thumb-2 build. */
type GuestSet = Isa | 'arm-thumb';

const boot = (set: GuestSet, cpus: number) =>
  guestSession({ isa: set === 'arm-thumb' ? 'arm' : set, thumb: set === 'arm-thumb', cpus, command: ['/bin/sh', '-c', SCRIPT] });

async function untraced(isa: GuestSet, cpus: number) {
  const { session, collected } = await boot(isa, cpus);
  const machine = session.machine!;
  const result = await machine.runUntilPowerOff({ instructions: INSTRUCTION_LIMIT });
  return { result, output: collected.guestOut, instructions: machine.instructions };
}

async function traced(isa: GuestSet, cpus: number, script: string) {
  const { session, collected } = await boot(isa, cpus);
  const machine = session.machine!;
  const program = session.compile(script);
  const before = kernelText(machine);
  let patchedDuring = 0;
  const run = await session.run(program, {
    timeLimit: BigInt(INSTRUCTION_LIMIT),
    // Consume every 1 ms of virtual time, so the session pauses while the guest runs.
    options: { ...defaultOptions(), switchrate: 1_000_000n },
    // Between steps the probes are in the text: count the bytes that differ once.
    yield: async () => {
      if (patchedDuring === 0) {
        const now = kernelText(machine);
        for (const [k, b] of before) patchedDuring += b.reduce((n, x, i) => n + (x !== now.get(k)![i] ? 1 : 0), 0);
      }
    },
  });
  const trace = collected.both + collected.printout;
  const after = kernelText(machine);
  return { run, output: collected.guestOut, trace, before, after, patchedDuring, instructions: machine.instructions };
}

/** Counts in an aggregation printout (the last column), summed. */
function totalCount(trace: string): number {
  return trace
    .split('\n')
    .map((l) => /\s(\d+)\s*$/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined)
    .reduce((a, n) => a + Number(n), 0);
}

describe.each([
  ['x86_64', 1],
  ['x86_64', 2],
  ['arm', 1],
  ['arm', 2],
  ['arm-thumb', 1],
  ['arm-thumb', 2],
] as const)('guest workloads on %s with %d CPU(s) under every kernel probe', (isa, cpus) => {
  let plain: Awaited<ReturnType<typeof untraced>> | undefined;
  const baseline = async () => (plain ??= await untraced(isa, cpus));

  it('run untraced to completion', async () => {
    const p = await baseline();
    expect(p.result).toEqual({ kind: 'poweroff', status: 0 });
    expect(p.output).toContain('2\n'); // echo a | wc -c
    expect(p.output).toContain('motd');
    for (let i = 0; i < WORKLOADS.length; i++) expect(p.output).toContain(`w${i} exit 0\n`);
  }, 300_000);

  it.each(Object.keys(PROGRAMS))('print the same and exit the same with every %s probe enabled; the text is restored', async (which) => {
    const p = await baseline();
    const t = await traced(isa, cpus, PROGRAMS[which]!);
    expect(t.run.guest).toEqual(p.result);
    expect(t.output).toBe(p.output);
    // The probes were in the text while the guest ran, and fired.
    expect(t.patchedDuring).toBeGreaterThan(0);
    expect(totalCount(t.trace)).toBeGreaterThan(1000);
    // Byte-identical afterwards.
    expect([...t.after.keys()]).toEqual([...t.before.keys()]);
    // The kernel's text and the hello module's.
    expect([...t.before.keys()].some((k) => k.startsWith('kernel .text '))).toBe(true);
    expect([...t.before.keys()].some((k) => k.startsWith('hello .text'))).toBe(true);
    for (const [k, b] of t.before) expect(Buffer.from(t.after.get(k)!).equals(Buffer.from(b)), k).toBe(true);
    console.log(`safety ${isa} ${cpus} CPU(s) ${which}: ${totalCount(t.trace)} firings, ${t.patchedDuring} text bytes patched, ${t.instructions} guest instructions (untraced ${p.instructions})`);
  }, 600_000);
});
