// Safety of the kernel providers on a booted guest, with real D programs,
// on each ISA:
// - probes on the interrupt, trap and scheduler paths (the timer interrupt,
//   the page-fault path, schedule, the context switch, the idle loop — with
//   kinst on every instruction of the context switch, the idle wait and the
//   hand-written trap entry and return code)
//   fire, and the guest runs as untraced, within an instruction limit;
// - clauses dereferencing bad pointers get dtrace(1)'s error message, at the
//   DIF offset of the faulting load, fire dtrace:::ERROR, and the guest runs
//   on as untraced;
// - `caller` at an fbt entry is the return address into the caller: the
//   first frame of stack(), just after a call instruction to the function.
import { difInstructionText } from '@wdtrace/dtrace-core/dif';
import type { CompiledProgram } from '@wdtrace/dtrace-core';
import type { Isa } from '@wdtrace/kernel';
import { createIsaSupport } from '@wdtrace/providers';
import { describe, expect, it } from 'vitest';
import { guestSession } from './guest-support.js';

/** A hang would stop here: virtual ns for a session (idle time included), instructions for an untraced run. */
const INSTRUCTION_LIMIT = 5_000_000_000;

const guest = (isa: Isa, cpus: number, script: string) => guestSession({ isa, cpus, command: ['/bin/sh', '-c', script] });

async function untraced(isa: Isa, cpus: number, script: string) {
  const { session, collected } = await guest(isa, cpus, script);
  const result = await session.machine!.runUntilPowerOff({ instructions: INSTRUCTION_LIMIT });
  return { result, output: collected.guestOut };
}

async function traced(isa: Isa, cpus: number, script: string, d: string) {
  const { session, collected } = await guest(isa, cpus, script);
  const program = session.compile(d, { origin: { kind: 'text' } });
  const run = await session.run(program, { timeLimit: BigInt(INSTRUCTION_LIMIT) });
  return { run, program, session, guestOut: collected.guestOut, out: collected.out + collected.printout, err: collected.errorsAndDrops };
}

/** `@[probefunc, probename] = count()` output as a map "func:name" -> count. */
function counts(out: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length === 3 && /^\d+$/.test(f[2]!)) m.set(`${f[0]}:${f[1]}`, Number(f[2]));
  }
  return m;
}

const PATHS: Record<Isa, { fbt: string[]; kinst: string[] }> = {
  x86_64: {
    // trap_handler takes every exception and interrupt (vector >= 32 goes to irq_entry).
    fbt: ['timer_interrupt', 'irq_entry', 'trap_handler', 'do_user_fault', 'handle_mm_fault', 'scheduler_tick', 'schedule', 'arch_switch_to', 'cpu_idle', 'arch_wait_for_interrupt'],
    kinst: ['__switch_to', 'arch_wait_for_interrupt', 'trap_common', 'trap_return', 'syscall_entry'],
  },
  arm: {
    fbt: ['timer_interrupt', 'irq_entry', 'arm_exception', 'do_user_fault', 'handle_mm_fault', 'scheduler_tick', 'schedule', 'arch_switch_to', 'cpu_idle', 'arch_wait_for_interrupt'],
    // Every instruction (the wfi at +4 is refused, as x86-64 refuses hlt: see below).
    kinst: ['__switch_to', 'arch_wait_for_interrupt', 'exception_return'],
  },
};

// Page faults (demand paging, exec, a SIGSEGV), context switches between processes, a second
// of sleep (the idle loop on both CPUs, a hundred timer ticks).
const PATH_WORKLOAD = '/bin/forkheavy 3 exec; /bin/fault; echo fault $?; /bin/sleep 1; echo a | wc -c';

describe.each(['x86_64', 'arm'] as const)('kernel probes on interrupt, trap and scheduler paths of a two-CPU %s guest', (isa) => {
  it('fire, and the guest runs as untraced without hanging', async () => {
    const plain = await untraced(isa, 2, PATH_WORKLOAD);
    expect(plain.result).toEqual({ kind: 'poweroff', status: 0 });
    const { fbt, kinst } = PATHS[isa];
    const d = [
      `${fbt.map((f) => `fbt::${f}:entry`).join(', ')} { @[probefunc, probename] = count(); }`,
      `${fbt.filter((f) => f !== 'cpu_idle').map((f) => `fbt::${f}:return`).join(', ')} { @[probefunc, probename] = count(); }`,
      `${kinst.map((f) => `kinst::${f}:`).join(', ')} { @[probefunc, "kinst"] = count(); }`,
    ].join('\n');
    const t = await traced(isa, 2, PATH_WORKLOAD, d);
    expect(t.err).toBe('');
    expect(t.run.guest).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.guestOut).toBe(plain.output);
    const c = counts(t.out);
    for (const f of fbt) if (f !== 'cpu_idle') expect(c.get(`${f}:entry`) ?? 0, `${f}:entry`).toBeGreaterThan(0);
    for (const f of fbt) if (f !== 'cpu_idle') expect(c.get(`${f}:return`) ?? 0, `${f}:return`).toBeGreaterThan(0);
    for (const f of kinst) expect(c.get(`${f}:kinst`) ?? 0, `${f} (kinst)`).toBeGreaterThan(0);
    // Both CPUs entered the idle loop at boot, before tracing began (it never returns); the timer ticks many times.
    expect(c.get('cpu_idle:entry')).toBeUndefined();
    expect(c.get('timer_interrupt:entry')!).toBeGreaterThan(5);
    console.log(`paths ${isa}: ${[...c].map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }, 300_000);
});

describe.each([
  ['x86_64', 5, 'hlt', 'privileged instructions (iretq, I/O, control registers) are not run out of line'],
  ['arm', 4, 'wfi', 'wfi/wfe wait for an interrupt and are not run out of line'],
] as const)('kinst on the idle wait of a %s guest', (isa, offset, text, why) => {
  it(`refuses the ${text}, which would halt the core out of line`, async () => {
    const { session } = await guest(isa, 2, 'true');
    expect(() => session.registry.match({ provider: 'kinst', module: '', function: 'arch_wait_for_interrupt', name: String(offset) })).toThrow(
      `kinst: cannot probe arch_wait_for_interrupt+${offset} ("${text}"): ${why}`,
    );
  });

  // Before wfi was refused, this probe ended the two-CPU ARM machine at the first idle wait with no
  // interrupt pending ("CPU 1 stopped with stop reason 2 and no pending exception").
  it('probes every other instruction of it on two CPUs and the guest sleeps and wakes as untraced', async () => {
    const plain = await untraced(isa, 2, '/bin/sleep 1; echo a | wc -c');
    const t = await traced(isa, 2, '/bin/sleep 1; echo a | wc -c', 'kinst::arch_wait_for_interrupt: { @[probefunc, probename] = count(); }');
    expect(t.err).toBe('');
    expect(t.run.guest).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.guestOut).toBe(plain.output);
    const offsets = [...counts(t.out).keys()].map((k) => Number(k.split(':')[1]));
    expect(offsets).not.toContain(offset);
    expect(offsets.length).toBeGreaterThanOrEqual(3);
  }, 300_000);
});

/** The DIF instruction an error message points at. */
function faultingInstruction(program: CompiledProgram, epid: number, action: number, offset: number): string {
  // Enabled probe IDs number the program's clauses in order from 1 (one probe per clause here).
  const ecb = program.ecbs[epid - 1]!;
  const difo = action === 0 ? ecb.predicate! : ecb.actions[action - 1]!.difo!;
  return difInstructionText(difo, difo.buf[offset / 4]!);
}

const BAD_POINTERS = [
  { clause: 'trace(*(int *)0);', address: 0n, instruction: /^ld/ },
  // arg0 of sys_write is the file descriptor, 1 or 2: a 4-byte load there is misaligned, which dtrace checks first.
  { clause: 'trace(*(int *)arg0);', address: undefined, instruction: /^ld/ },
  { clause: 'trace(copyinstr(0));', address: 0n, instruction: /^call\s+DIF_SUBR\(\d+\), %r\d+\s+! copyinstr$/ },
  { clause: 'trace(stringof(*(char **)8));', address: 8n, instruction: /^ld/ },
];

describe.each(['x86_64', 'arm'] as const)('bad pointers in D on a %s guest', (isa) => {
  it("get dtrace's error message and ERROR; the guest runs on as untraced", async () => {
    const workload = 'echo a | wc -c; ls /etc; cat /etc/motd';
    const plain = await untraced(isa, 1, workload);
    const d = [...BAD_POINTERS.map((b) => `fbt::sys_write:entry { ${b.clause} }`), 'ERROR { @errors[arg4, arg5] = count(); }'].join('\n');
    const t = await traced(isa, 1, workload, d);
    expect(t.run.guest).toEqual({ kind: 'poweroff', status: 0 });
    expect(t.guestOut).toBe(plain.output);
    const probe = t.session.registry.match({ provider: 'fbt', module: 'kernel', function: 'sys_write', name: 'entry' })[0]!;
    const lines = t.err.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    const writes = lines.length / BAD_POINTERS.length;
    expect(Number.isInteger(writes)).toBe(true);
    const seen = new Set<string>();
    for (const line of lines) {
      const m = /^dtrace: error on enabled probe ID (\d+) \(ID (\d+): fbt:kernel:sys_write:entry\): (invalid address|invalid alignment) \((0x[0-9a-f]+)\) in action #(\d+) at DIF offset (\d+)$/.exec(line);
      expect(m, line).not.toBeNull();
      const [, epid, id, fault, address, action, offset] = m!;
      expect(Number(id)).toBe(probe.id);
      const bad = BAD_POINTERS[Number(epid) - 1]!;
      expect(action).toBe('1');
      if (bad.address !== undefined) {
        expect(fault).toBe('invalid address');
        expect(BigInt(address!)).toBe(bad.address);
      } else {
        expect(fault).toBe('invalid alignment');
        expect(['0x1', '0x2']).toContain(address);
      }
      expect(Number(offset) % 4).toBe(0);
      expect(faultingInstruction(t.program, Number(epid), 1, Number(offset)), line).toMatch(bad.instruction);
      seen.add(epid!);
    }
    expect([...seen].sort()).toEqual(['1', '2', '3', '4']);
    // ERROR's arg4 is the fault (DTRACEFLT_BADADDR = 1, DTRACEFLT_BADALIGN = 2), arg5 the address; one per error message.
    const errors = counts(t.out);
    const total = [...errors.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(lines.length);
    expect(errors.get('1:0')).toBe(writes * 2);
    expect(errors.get('1:8')).toBe(writes);
    expect((errors.get('2:1') ?? 0) + (errors.get('2:2') ?? 0)).toBe(writes);
  }, 300_000);
});

describe.each(['x86_64', 'arm'] as const)('caller at fbt entry on a %s guest', (isa) => {
  it('is the return address into the caller, the first frame of stack(), just after a call', async () => {
    // do_syscall: a direct call; sys_getpid: an indirect call through the system-call table; strlen: a leaf.
    const fns = ['do_syscall', 'sys_getpid', 'strlen'];
    const d = `fbt::${fns.join(':entry, fbt::')}:entry /execname != "sched"/ { printf("%s %x\\n", probefunc, caller); stack(1); }`;
    const t = await traced(isa, 1, '/bin/syscallheavy 3; echo hi', d);
    expect(t.run.guest).toEqual({ kind: 'poweroff', status: 0 });
    const support = await createIsaSupport(isa);
    const machine = t.session.machine!;
    const lines = t.out.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const firings = new Map<string, number>();
    for (let i = 0; i < lines.length; i++) {
      const m = /^\d+\s+\d+\s+(\w+):entry (\w+) ([0-9a-f]+)$/.exec(lines[i]!);
      if (!m) continue;
      const [, , fn, hex] = m;
      const caller = BigInt(`0x${hex}`);
      // stack()'s first frame names the same address.
      const sym = machine.symbols.functionAt(caller)!;
      expect(sym, `caller 0x${hex} of ${fn}`).toBeDefined();
      expect(lines[i + 1]).toBe(`${sym.module}\`${sym.name}+0x${(caller - sym.address).toString(16)}`);
      // The instruction ending at caller is a call, to fn itself when direct.
      const decoded = support.decode(machine.readText(sym.address, Number(caller - sym.address)), sym.address);
      const call = decoded.insns.find((x) => x.address + BigInt(x.length) === caller);
      expect(call?.classes.has('call'), `${call?.text} before 0x${hex}`).toBe(true);
      if (call!.target !== undefined) expect(call!.target).toBe(machine.symbols.byName(fn!)!.address);
      firings.set(fn!, (firings.get(fn!) ?? 0) + 1);
    }
    for (const f of fns) expect(firings.get(f) ?? 0, f).toBeGreaterThanOrEqual(3);
    console.log(`caller ${isa}: ${[...firings].map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }, 300_000);
});
