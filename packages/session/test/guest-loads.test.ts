// Guest loads of the WebAssembly backend on a booted guest of each ISA: the
// walk it runs in WebAssembly over the CPU core's memory must read what the
// machine's own NOFAULT reads read, for every aligned word of RAM, and leave
// everything else to the call out; DIF loads of every kind (1, 2, 4, 8
// bytes, signed and unsigned, kernel and user, mapped, unmapped, a device,
// misaligned, across a page) give the same value or fault, with the same
// faulting address and DIF offset, as the interpreter; and D clauses that
// load give the same output with -x backend=dif and =wasm.
import { describe, expect, it } from 'vitest';
import { ARENA_BASE, Arena, DifFault, buildDifo, defaultOptions, difEmulate, guestMemoryReader, loadDifo, setOption, wasmCompile, type VmFiring } from '@wdtrace/dtrace-core';
import { DIF_OP, difInstrFmt, difInstrRet, difInstrSetx } from '@wdtrace/dtrace-core/dif';
import { Machine, type Isa } from '@wdtrace/kernel';
import { GuestMachineView, createIsaSupport } from '@wdtrace/providers';
import { guestSession } from './guest-support.js';

/** The guest kernel's virtual address of the device window (arch.h's DEVICE_VIRT_BASE). */
const DEVICE_VA: Record<Isa, bigint> = { x86_64: 0xffff_ffff_f000_0000n, arm: 0xf000_0000n };
/** Where the kernel's image starts (its link address). */
const KERNEL_BASE: Record<Isa, bigint> = { x86_64: 0xffff_ffff_8000_0000n, arm: 0xc000_0000n };

/**
 * A 2-CPU guest stopped while a CPU runs syscallheavy in user mode, and the
 * framework's view of it with that CPU as the firing CPU (user loads read
 * its address space).
 */
async function userGuest(isa: Isa) {
  const machine = await Machine.create({ isa, cmdline: 'quiet', args: ['/bin/syscallheavy', '100000'], cpus: 2 });
  const view = new GuestMachineView(machine, await createIsaSupport(isa));
  for (let slice = 0; slice < 2000; slice++) {
    machine.run({ instructions: 20_000 });
    for (const cpu of [0, 1]) {
      if (machine.registers(cpu).userMode() && view.thread(cpu).execname === 'syscallheavy') {
        view.firingCpu = cpu;
        return { machine, view, cpu };
      }
    }
  }
  throw new Error(`${isa}: syscallheavy never ran in user mode`);
}

/** A small deterministic generator (xorshift). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

/** Addresses of each kind on the guest: kernel text and data, the user stack and text, and what is none of them. */
function addresses(isa: Isa, machine: Machine, view: GuestMachineView, cpu: number) {
  const r = rng(isa === 'arm' ? 7 : 3);
  const kernel: bigint[] = [];
  const fns = machine.kernelModules()[0]!.functions;
  for (let i = 0; i < fns.length; i += Math.max(1, fns.length >> 6)) kernel.push(fns[i]!.address, fns[i]!.address + BigInt(r(64)));
  const task = view.thread(cpu).address!;
  for (let i = 0; i < 64; i++) kernel.push(task + BigInt(r(512)));
  // All over the kernel's first 64 MiB (RAM is mapped there), and past it.
  for (let i = 0; i < 256; i++) kernel.push(KERNEL_BASE[isa] + BigInt(r(64 << 20)), KERNEL_BASE[isa] + BigInt(64 << 20) + BigInt(r(1 << 30)));
  const regs = machine.registers(cpu);
  const user: bigint[] = [];
  for (let i = 0; i < 64; i++) user.push(regs.sp() + BigInt(r(256)) - 64n, (regs.pc() & ~3n) + BigInt(r(256)) - 128n);
  for (let i = 0; i < 64; i++) user.push(BigInt(r(0x4000_0000)));
  const other = [0n, 8n, 0xfffn, DEVICE_VA[isa], DEVICE_VA[isa] + 0x1000n, ARENA_BASE, ARENA_BASE + 16n, 0xffff_ffff_ffff_fff8n, 0x1_0000_0000n, 0x1_c000_0000n];
  if (isa === 'x86_64') other.push(0x0000_8000_0000_0000n, 0x8000_0000_0000_0000n, 0xffff_7fff_ffff_f000n);
  return { kernel, user, other };
}

describe.each(['x86_64', 'arm'] as const)('guest loads in WebAssembly on %s', (isa) => {
  it('walks to what the machine\'s NOFAULT reads read, for every aligned word, and leaves the rest to the call out', async () => {
    const { machine, view, cpu } = await userGuest(isa);
    const reader = guestMemoryReader(view.guestMemory!)!;
    expect(reader).toBeDefined();
    const { kernel, user, other } = addresses(isa, machine, view, cpu);
    const root = machine.registers(cpu).pageTableRoot();
    const hits = { kernel: 0, user: 0, other: 0 };
    for (const [kind, list] of Object.entries({ kernel, user, other }) as [keyof typeof hits, bigint[]][]) {
      for (const va of list) {
        for (const size of [1, 2, 4, 8]) {
          for (const asUser of [false, true]) {
            const got = reader(va, size, asUser);
            const aligned = va % BigInt(size) === 0n;
            const expected = machine.readWord(BigInt.asUintN(64, va), size, asUser ? root : undefined);
            // Aligned: exactly what the machine reads (undefined where it faults); misaligned: always the call out.
            expect(got, `${kind} ${size}-byte ${asUser ? 'user' : 'kernel'} load at 0x${va.toString(16)}`).toBe(aligned ? expected : undefined);
            if (got !== undefined) hits[kind]++;
          }
        }
      }
    }
    expect(hits.kernel).toBeGreaterThan(1000);
    expect(hits.user).toBeGreaterThan(200);
    // The device window, the arena, addresses past the ISA's and page 0 are never read in WebAssembly.
    expect(hits.other).toBe(0);
  }, 120_000);

  it('walks hand-made tables of every kind of page and entry as the machine\'s NOFAULT reads walk them', async () => {
    const { machine, view } = await userGuest(isa);
    // Tables and pages at the top of RAM (the guest does not run again), reached as a user address space's root.
    const ram = machine.port.ram();
    const dv = new DataView(ram.buffer, ram.byteOffset, ram.byteLength);
    const S = ram.length - 0x10_0000;
    for (let i = 0; i < 0x10_0000; i += 4) dv.setUint32(S + i, (0x9e37_79b9 * (i + 1)) >>> 0, true);
    const vas: bigint[] = [];
    let root: bigint;
    if (isa === 'x86_64') {
      const entry = (at: number, index: number, value: bigint) => dv.setBigUint64(at + index * 8, value, true);
      const [pml4, pdpt, pd, pt] = [S, S + 0x1000, S + 0x2000, S + 0x3000];
      for (const t of [pml4, pdpt, pd, pt]) for (let i = 0; i < 512; i++) entry(t, i, 0n);
      entry(pml4, 0, BigInt(pdpt) | 3n);
      entry(pml4, 2, BigInt(pdpt) | 2n); // not present
      entry(pdpt, 0, BigInt(pd) | 3n);
      entry(pdpt, 1, 0x83n); // a 1 GiB page at 0: RAM in its first 64 MiB
      entry(pdpt, 3, 0xc000_0083n); // a 1 GiB page over the device window
      entry(pdpt, 4, (1n << 40n) | 0x83n); // a 1 GiB page past 2^32
      entry(pd, 0, BigInt(pt) | 3n);
      entry(pd, 1, 0x20_0083n); // a 2 MiB page
      entry(pd, 2, 0x40_0082n); // a 2 MiB page, not present
      entry(pd, 3, BigInt(ram.length) | 0x83n); // a 2 MiB page past RAM
      entry(pd, 4, (1n << 36n) | 3n); // a page table past 2^32
      for (let i = 0; i < 4; i++) entry(pt, i, BigInt(S + 0x4000 + i * 0x1000) | 3n);
      entry(pt, 4, BigInt(S + 0x8000)); // not present
      entry(pt, 5, BigInt(ram.length - 0x1000) | 1n); // the last page of RAM
      entry(pt, 6, BigInt(ram.length) | 1n); // past RAM
      root = BigInt(pml4) | 0x18n; // PWT and PCD: not address bits
      for (const base of [0n, 0x1000n, 0x3000n, 0x4000n, 0x5000n, 0x6000n, 0x20_0000n, 0x30_0000n, 0x40_0000n, 0x60_0000n, 0x80_0000n,
        0x4000_0000n, 0x4100_0000n, 0x4400_0000n, 0x8000_0000n, 0xc000_0000n + 0x3000_0000n, 0x1_0000_0000n, 0x100_0000_0000n]) {
        vas.push(base, base + 8n, base + 0xff8n, base + 0x1234n);
      }
    } else {
      // TTBCR.N of the guest's CPU 0 decides which addresses TTBR0 (our root) maps: those below 2^(32 - N).
      const words = new Uint32Array(6);
      view.guestMemory!.translationRegisters(words, 0, false);
      const n = words[3]! & 7;
      const l1 = (S + 0x3fff) & ~0x3fff;
      const l2 = l1 + 0x4000;
      for (let i = 0; i < 0x1000; i++) dv.setUint32(l1 + i * 4, 0, true);
      for (let i = 0; i < 256; i++) dv.setUint32(l2 + i * 4, 0, true);
      const section = (index: number, value: number) => dv.setUint32(l1 + index * 4, value >>> 0, true);
      const page = (index: number, value: number) => dv.setUint32(l2 + index * 4, value >>> 0, true);
      const AP = (ap: number) => ((ap & 3) << 10) | ((ap & 4) << 13); // a section's AP[2:0]
      const PAP = (ap: number) => ((ap & 3) << 4) | ((ap & 4) << 7); // a page's
      section(0, 0x0010_0000 | AP(1) | 2); // a section, privileged read/write
      section(1, 0x0100_0000 | (1 << 18) | AP(1) | 2); // a supersection
      section(2, l2 | 1); // a page table
      section(3, 0x0020_0000 | AP(0) | 2); // no access
      section(4, 0x0030_0000 | AP(4) | 2); // AP 4: reserved
      section(5, 0x0040_0000 | AP(5) | 2); // privileged read-only
      section(6, 0x0050_0000 | AP(2) | 2); // user read-only
      section(7, 0x0060_0000 | AP(1) | 3); // reserved type
      section(8, 0xf000_0000 | AP(1) | 2); // the device window
      section(9, (ram.length & ~0xf_ffff) | AP(1) | 2); // past RAM
      section(10, (0x10_0000 + 0x20) | AP(1) | 2); // domain 1
      page(0, (S + 0x5000) | PAP(1) | 2); // a small page
      page(1, 0x0030_0000 | PAP(1) | 1); // a large page
      page(2, 0); // fault
      page(3, (S + 0x6000) | PAP(0) | 3); // small (XN), no access
      page(4, (S + 0x7000) | PAP(4) | 2);
      page(5, (S + 0x8000) | PAP(2) | 2);
      page(6, ((ram.length - 4) & ~0xfff) | PAP(1) | 2); // the last page of RAM
      root = BigInt(l1 | 0x4a); // attribute bits below the table address
      for (let i = 0; i <= 11; i++) {
        const base = BigInt(i) << 20n;
        if (n !== 0 && base >> BigInt(32 - n) !== 0n) continue;
        vas.push(base, base + 8n, base + 0xffff8n, base + 0x1234n, base + 0x1000n, base + 0x2000n, base + 0x3000n, base + 0x4000n, base + 0x5000n, base + 0x6000n, base + 0x10_000n + 4n);
      }
      vas.push(0x1_0000_0000n, 0xffff_ffff_ffff_fff0n);
    }
    // The window with this root for user loads: its walk against readWord with the same root.
    const window = view.guestMemory!;
    const reader = guestMemoryReader({ ...window, translationRegisters: (w, at, user) => {
      window.translationRegisters(w, at, user);
      w[at + 1] = isa === 'x86_64' ? Number(root & 0x000f_ffff_ffff_f000n) : Number(root);
    } })!;
    let hits = 0;
    let misses = 0;
    for (const va of vas) {
      for (const size of [1, 2, 4, 8]) {
        const got = reader(va, size, true);
        const expected = machine.readWord(va, size, root);
        expect(got, `${size}-byte load at 0x${va.toString(16)}`).toBe(va % BigInt(size) === 0n ? expected : undefined);
        if (got === undefined) misses++;
        else hits++;
      }
    }
    expect(hits).toBeGreaterThan(40);
    expect(misses).toBeGreaterThan(40);
  }, 120_000);

  it('gives each DIF load\'s value or fault, its address and offset, as the interpreter does', async () => {
    const { machine, view, cpu } = await userGuest(isa);
    const arena = new Arena(64 * 1024, 64 * 1024);
    const none = (): never => {
      throw new Error('no variables in these programs');
    };
    const firing = (): VmFiring => ({
      machine: view,
      arena,
      variables: { loadGlobal: none, storeGlobal: none, loadThread: none, storeThread: none, loadAssoc: none, storeAssoc: none },
      locals: new Map(),
      cpu,
      probeId: 1,
      epid: 1,
      args: [],
      probe: { provider: 'test', module: 'kernel', function: 'f', name: 'fire' },
      timestamp: 0n,
      strsize: 256,
      speculation: () => 0,
      instructions: 0,
    });
    type Outcome = { value: bigint } | { fault: number; address: bigint; offset: number };
    const outcome = (run: () => bigint): Outcome => {
      try {
        return { value: run() };
      } catch (e) {
        if (!(e instanceof DifFault)) throw e;
        return { fault: e.fault, address: e.address, offset: e.difOffset };
      }
    };
    const regs = machine.registers(cpu);
    const root = regs.pageTableRoot();
    const userMapped = (va: bigint) => machine.readWord(va, 1, root) !== undefined;
    // A user page boundary with both pages mapped, and one where the page after is not.
    let both: bigint | undefined;
    let lastMapped: bigint | undefined;
    for (const near of [regs.pc(), regs.sp()]) {
      for (let p = (near & ~0xfffn) - 0x10_0000n; p <= (near & ~0xfffn) + 0x10_0000n; p += 0x1000n) {
        if (p < 0n) continue;
        if (userMapped(p) && userMapped(p + 0x1000n)) both ??= p + 0x1000n;
        if (userMapped(p) && !userMapped(p + 0x1000n)) lastMapped ??= p + 0x1000n;
      }
    }
    expect(both).toBeDefined();
    expect(lastMapped).toBeDefined();
    const fn = machine.symbols.byName('regs_syscall_arg')!.address;
    const task = view.thread(cpu).address!;
    const targets = [
      fn, fn + 1n, fn + 2n, fn + 4n, fn + 6n, task, task + 8n, task + 3n,
      regs.sp() & ~7n, (regs.sp() & ~7n) + 4n, regs.pc() & ~3n,
      both! - 1n, both! - 2n, both! - 4n, both! - 6n, lastMapped! - 2n, lastMapped! - 4n, lastMapped!,
      0n, 0x10n, DEVICE_VA[isa], DEVICE_VA[isa] + 4n, KERNEL_BASE[isa] + 0x7ff_f000n, 0x1_0000_0000n, 0xffff_ffff_ffff_fff8n,
    ];
    const loads = [
      DIF_OP.LDSB, DIF_OP.LDSH, DIF_OP.LDSW, DIF_OP.LDUB, DIF_OP.LDUH, DIF_OP.LDUW, DIF_OP.LDX,
      DIF_OP.RLDSB, DIF_OP.RLDSH, DIF_OP.RLDSW, DIF_OP.RLDUB, DIF_OP.RLDUH, DIF_OP.RLDUW, DIF_OP.RLDX,
      DIF_OP.ULDSB, DIF_OP.ULDSH, DIF_OP.ULDSW, DIF_OP.ULDUB, DIF_OP.ULDUH, DIF_OP.ULDUW, DIF_OP.ULDX,
    ];
    let values = 0;
    let faults = 0;
    let negatives = 0;
    for (const op of loads) {
      for (const at of targets) {
        // setx %r1; add a second load of the same kind after a first, so a fault's offset differs from 0; ret.
        const ld = loadDifo(buildDifo([difInstrSetx(0, 1), difInstrSetx(1, 3), difInstrFmt(op, 3, 0, 4), difInstrFmt(op, 1, 0, 2), difInstrFmt(DIF_OP.ADD, 2, 4, 2), difInstrRet(2)], { inttab: [at, fn] }), arena);
        const compiled = wasmCompile(ld, view);
        expect(compiled).toBeDefined();
        const fi = firing();
        const fw = firing();
        const dif = outcome(() => difEmulate(ld, fi));
        const wasm = outcome(() => compiled!(fw));
        expect(wasm, `op ${op} at 0x${at.toString(16)}`).toEqual(dif);
        expect(fw.instructions).toBe(fi.instructions);
        if ('value' in dif) {
          values++;
          if (dif.value >= 1n << 63n) negatives++;
        } else faults++;
      }
    }
    expect(values).toBeGreaterThan(150);
    expect(faults).toBeGreaterThan(150);
    expect(negatives).toBeGreaterThan(0);
  }, 120_000);

  it('prints the same with -x backend=dif and wasm for D clauses that load kernel memory, faults and the ERROR probe included', async () => {
    const script = [
      'fbt::regs_syscall_arg:entry /execname == "syscallheavy"/ { @q = sum(*(long *)arg0); @i = sum(*(int *)(arg0 + 8)); @h = sum(*(short *)(arg0 + 18)); @c = sum(*(char *)(arg0 + 3)); @u = sum(*(unsigned char *)(arg0 + 5)); @n = count(); }',
      'syscall::getpid:entry /execname == "syscallheavy"/ { n++; }',
      'syscall::getpid:entry /execname == "syscallheavy" && n <= 3/ { trace(*(int *)0x18); }',
      `syscall::getpid:entry /execname == "syscallheavy" && n == 4/ { trace(*(int *)0x${DEVICE_VA[isa].toString(16)}); }`,
      // A kernel load of a user address: through the address space of the CPU the probe fired on.
      'syscall::write:entry /execname == "syscallheavy" && arg2 == 1/ { @w = sum(*(unsigned char *)arg1); }',
      'dtrace:::ERROR { @errors[arg4, arg5] = count(); }',
    ].join('\n');
    const outputs: string[] = [];
    for (const backend of ['dif', 'wasm']) {
      const { session, collected } = await guestSession({ isa, cpus: 2, command: ['/bin/syscallheavy', '50'] });
      const options = defaultOptions();
      setOption(options, 'backend', backend);
      const run = await session.run(session.compile(script), { options });
      expect(run.status).toBe(0);
      outputs.push(collected.both + collected.printout);
    }
    expect(outputs[1]).toBe(outputs[0]);
    // The loads read something, and the bad ones faulted at their addresses (DTRACEFLT_BADADDR is 1).
    expect(outputs[0]).toMatch(/error on enabled probe ID \d+ \(ID \d+: syscall::getpid:entry\): invalid address \(0x18\)/);
    expect(outputs[0]).toContain(`invalid address (0x${DEVICE_VA[isa].toString(16)})`);
    expect(outputs[0]).toMatch(/\n\s+1\s+24\s+3\n/);
    // 50 writes of 'x'.
    expect(outputs[0]).toMatch(/\n\s+6000\n/);
  }, 240_000);
});
