// System architecture of the ARMv7-A core: exceptions through VBAR, banked
// registers, the MMU (sections, small pages, AP, domains, faults), IRQs,
// wfi, the exclusive monitor, exact code-cache invalidation, the DTrace
// breakpoint and emulations, displaced execution and safe virtual reads.
// Programs are A32 words (assembled with llvm-mc; the source is beside each).
import { beforeEach, describe, expect, it } from 'vitest';
import { ArmEmulation, ArmException, ArmMode, ArmState, createArmCore, DTRACE_BREAKPOINT, StopReason, writeRam, type ArmCoreExports } from '../src/index.js';

let core: ArmCoreExports;
const RAM = 4 << 20;

function words(at: number, list: number[]): void {
  const bytes = new Uint8Array(list.length * 4);
  const view = new DataView(bytes.buffer);
  list.forEach((w, i) => view.setUint32(i * 4, w, true));
  writeRam(core, at, bytes);
}

/**
 * Short-descriptor tables at 0x100000: the first MB a full-access section,
 * 0x00400000 a page table at 0x104000 whose first page (0x300000) user mode
 * may only read and whose next `fullPages` pages (0x301000 on) allow all.
 */
function writeTestTables(fullPages: number): void {
  const t = new Uint32Array(4096);
  t[0] = (3 << 10) | 2;
  t[4] = 0x104000 | 1;
  writeRam(core, 0x100000, new Uint8Array(t.buffer));
  const p = new Uint32Array(256);
  p[0] = 0x00300000 | (2 << 4) | 2;
  for (let i = 1; i <= fullPages; i++) p[i] = (0x00300000 + 0x1000 * i) | (3 << 4) | 2;
  writeRam(core, 0x104000, new Uint8Array(p.buffer));
}
const u = (v: number) => v >>> 0;
const reg = (n: number) => u(core.getReg(0, n));
const word32 = (pa: number) => new DataView(core.memory.buffer, core.ramOffset()).getUint32(pa, true);

beforeEach(async () => {
  core = await createArmCore('debug');
  expect(core.init(1, RAM)).toBe(0);
});

describe('exceptions', () => {
  it('takes svc through VBAR in SVC mode and returns with movs pc, lr', () => {
    // 0x8000: svc #5 ; mov r1, #7 ; udf #17       0x2008: mov r2, lr ; mrs r3, spsr ; movs pc, lr
    words(0x8000, [0xef000005, 0xe3a01007, 0xe7f001f1]);
    words(0x2008, [0xe1a0200e, 0xe14f3000, 0xe1b0f00e]);
    core.setCpsr(0, ArmMode.SVC | 0xc0);
    core.setReg(0, 0, 0x2000);
    words(0x7000, [0xee0c0f10, 0xe3a0f902]); // mcr p15, 0, r0, c12, c0, 0 (VBAR) ; mov pc, #0x8000
    core.setReg(0, 15, 0x7000);
    expect(core.run(0, 2)).toBe(StopReason.BUDGET);
    core.setCpsr(0, ArmMode.USR | 0x20000000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(2)).toBe(0x8004); // LR_svc = next instruction
    expect(reg(3)).toBe(u(ArmMode.USR | 0x20000000));
    expect(reg(1)).toBe(7);
    expect(u(core.getCpsr(0)) & 0x1f).toBe(ArmMode.USR);
    expect(core.stopPc(0) >>> 0).toBe(0x8008);
    // The unclaimed undefined instruction is delivered to the guest vector.
    core.deliverStop(0);
    expect(reg(15)).toBe(0x2004);
    expect(u(core.getCpsr(0)) & 0x1f).toBe(ArmMode.UND);
    expect(reg(14)).toBe(0x800c);
    expect(u(core.getSpsr(0, ArmMode.UND)) & 0x1f).toBe(ArmMode.USR);
  });

  it('banks r13/r14 per mode and r8-r14 for FIQ', () => {
    words(0x8000, [0xe3a0dc01, 0xe3a08008, 0xf1020012, 0xe3a0dc02, 0xf1020011, 0xe3a08088, 0xe3a0dc03, 0xf1020013, 0xe1a0000d, 0xe1a01008, 0xf1020012, 0xe1a0200d, 0xf1020011, 0xe1a03008, 0xe1a0400d, 0xe7f001f0]);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect([reg(0), reg(1), reg(2), reg(3), reg(4)]).toEqual([0x100, 8, 0x200, 0x88, 0x300]);
    expect(u(core.getBankedReg(0, ArmMode.SVC, 13))).toBe(0x100);
    expect(u(core.getBankedReg(0, ArmMode.USR, 8))).toBe(8);
  });

  it('takes an IRQ at an instruction boundary only when CPSR.I is clear, and wakes wfi', () => {
    words(0x8000, [0xe320f003, 0xe3a00001, 0xe7f001f0]); // wfi ; mov r0, #1 ; udf
    core.setCpsr(0, ArmMode.SVC | 0x80);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 10)).toBe(StopReason.HALT);
    expect(core.run(0, 10)).toBe(StopReason.HALT);
    core.setIrqLine(0, 1); // masked: wfi still wakes, no exception taken
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(1);
    core.setCpsr(0, ArmMode.SVC); // unmask
    core.setReg(0, 15, 0x8004);
    core.run(0, 1);
    expect(u(core.getCpsr(0)) & 0x1f).toBe(ArmMode.IRQ);
    expect(reg(15)).toBe(0x18 + 4); // vector executed one instruction (andeq r0, r0, r0 of zeroed RAM)
    expect(reg(14)).toBe(0x8008);
  });

  it('returns from exceptions with srs/rfe and ldm with pc and ^', () => {
    core.setCpsr(0, ArmMode.SVC);
    core.setSpsr(0, ArmMode.SVC, 0x60000010);
    core.setReg(0, 13, 0x9000);
    core.setReg(0, 14, 0x8100);
    words(0x8000, [0xf96d0513, 0xf8bd0a00]); // srsdb sp!, #0x13 ; rfeia sp!
    core.setReg(0, 15, 0x8000);
    core.run(0, 2);
    expect(reg(15)).toBe(0x8100);
    expect(u(core.getCpsr(0))).toBe(0x60000010);
    expect(u(core.getBankedReg(0, ArmMode.SVC, 13))).toBe(0x9000);
    // ldm sp!, {r0, pc}^ from ABT
    core.setCpsr(0, ArmMode.ABT);
    core.setSpsr(0, ArmMode.ABT, 0x80000013);
    core.setReg(0, 13, 0xa000);
    words(0xa000, [0x1234, 0x8200]);
    words(0x8010, [0xe8fd8001]);
    core.setReg(0, 15, 0x8010);
    core.run(0, 1);
    expect([reg(0), reg(15), u(core.getCpsr(0))]).toEqual([0x1234, 0x8200, 0x80000013]);
  });
});

describe('MMU', () => {
  const L1 = 0x100000;
  const L2 = 0x104000;
  function tables(): void {
    const t = new Uint32Array(4096);
    // Identity-map the first MB with a kernel-only section (AP=01, domain 0).
    t[0] = 0x00000000 | (1 << 10) | 2;
    // VA 0x80000000 -> PA 0x00200000, full access section, domain 1.
    t[0x800] = 0x00200000 | (3 << 10) | (1 << 5) | 2;
    // VA 0x00400000 -> page table in domain 0.
    t[4] = L2 | 1;
    writeRam(core, L1, new Uint8Array(t.buffer));
    const p = new Uint32Array(256);
    p[0] = 0x00300000 | (2 << 4) | 2; // 0x00400000 -> 0x00300000, AP=10: user read-only
    p[1] = 0x00301000 | (3 << 4) | 3; // 0x00401000 -> 0x00301000, full access, XN
    writeRam(core, L2, new Uint8Array(p.buffer));
  }

  it('translates sections and small pages and reports faults with FSR/FAR', () => {
    tables();
    words(0x200010, [0xcafef00d]);
    // mcr TTBR0 ; mcr DACR ; mrc SCTLR ; orr #1 ; mcr SCTLR ; isb ; ldr r3, [r4] ; str r5, [r6] ; udf
    words(0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe5943000, 0xe5865000, 0xe7f001f0]);
    core.setReg(0, 0, L1);
    core.setReg(0, 1, 0b0101); // domains 0 and 1: client
    core.setReg(0, 4, 0x80000010);
    core.setReg(0, 5, 77);
    core.setReg(0, 6, 0x00400008);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(3)).toBe(0xcafef00d);
    expect(word32(0x300008)).toBe(77); // privileged write to a user-RO page is allowed
    // User mode: reading the user-RO page works, writing faults (permission, page).
    core.setCpsr(0, ArmMode.USR);
    core.setReg(0, 15, 0x8018);
    expect(core.run(0, 10)).toBe(StopReason.PREFETCH_ABORT); // the code page is kernel-only
    expect(core.faultAddress(0) >>> 0).toBe(0x8018);
    expect(core.faultStatus(0) & 0x40f).toBe(0x0d); // permission fault, section
    core.setCpsr(0, ArmMode.SVC);
    expect(core.readVirtual(0, 0x00400008, 4)).toBe(77);
    expect(core.peekFault()).toBe(0);
    expect(core.readVirtual(0, 0x00500000, 4)).toBe(0);
    expect(core.peekFault()).toBe(1);
    expect(core.peekFaultAddress() >>> 0).toBe(0x00500000);
  });

  it('raises data aborts for translation, domain and permission faults, delivered through the vector', () => {
    tables();
    words(0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe5943000, 0xe5865000, 0xe7f001f0]);
    core.setReg(0, 0, L1);
    core.setReg(0, 1, 0b0001); // domain 1: no access
    core.setReg(0, 4, 0x80000010);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.DATA_ABORT);
    expect(core.stopPc(0) >>> 0).toBe(0x8018);
    expect(core.faultStatus(0) & 0x40f).toBe(0x09); // domain fault, section
    expect(core.pendingException(0)).toBe(ArmException.DATA_ABORT);
    core.deliverStop(0);
    expect(reg(15)).toBe(0x10);
    expect(reg(14)).toBe(0x8020); // LR_abt = faulting instruction + 8
    expect(u(core.getCpsr(0)) & 0x1f).toBe(ArmMode.ABT);
    // Unmapped address: translation fault (section).
    core.setCpsr(0, ArmMode.SVC);
    core.setReg(0, 4, 0x90000000);
    core.setReg(0, 15, 0x8018);
    expect(core.run(0, 10)).toBe(StopReason.DATA_ABORT);
    expect(core.faultStatus(0) & 0x40f).toBe(0x05);
    expect(core.faultAddress(0) >>> 0).toBe(0x90000000);
  });
});

describe('memory semantics', () => {
  it('implements the local exclusive monitor', () => {
    words(0x8000, [0xe1901f9f, 0xe2811001, 0xe1802f91, 0xe1803f91, 0xe1904f9f, 0xf57ff01f, 0xe1805f91, 0xe7f001f0]);
    words(0x9000, [41]);
    core.setReg(0, 0, 0x9000);
    core.setReg(0, 15, 0x8000);
    core.run(0, 100);
    expect([reg(2), reg(3), reg(4), reg(5)]).toEqual([0, 1, 42, 1]);
    expect(word32(0x9000)).toBe(42);
  });

  it('invalidates decoded code exactly when guest stores or host writes change it', () => {
    // mov r0, #0 ; ldr r1, [pc, #8] ; str r1, [pc, #-4] ; nop ; udf #0 ; add r0, r0, #42
    words(0x8000, [0xe3a00000, 0xe59f1008, 0xe50f1004, 0xe320f000, 0xe7f001f0, 0xe280002a]);
    // Run the nop once so it is decoded and cached.
    core.setReg(0, 15, 0x800c);
    core.run(0, 1);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(42); // the store replaced the cached nop with add r0, r0, #42
    words(0x8000, [0xe3a00007]); // host patch: mov r0, #7
    core.setReg(0, 15, 0x8000);
    core.run(0, 1);
    expect(reg(0)).toBe(7);
  });

  it('routes the device window to the host', async () => {
    const log: string[] = [];
    core = await createArmCore('debug', {
      mmioRead: (cpu, pa, size) => (log.push(`r${cpu} ${pa.toString(16)} ${size}`), 0x5a),
      mmioWrite: (cpu, pa, size, v) => void log.push(`w${cpu} ${pa.toString(16)} ${size} ${v}`),
    });
    core.init(1, RAM);
    // ldr r3, [r4] ; str r5, [r6] ; udf
    words(0x8000, [0xe5943000, 0xe5865000, 0xe7f001f0]);
    core.setReg(0, 4, 0xf0000010);
    core.setReg(0, 6, 0xf0000020);
    core.setReg(0, 5, 9);
    core.setReg(0, 15, 0x8000);
    core.run(0, 10);
    expect(reg(3)).toBe(0x5a);
    expect(log).toEqual(['r0 f0000010 4', 'w0 f0000020 4 9']);
  });
});

describe('DTrace support', () => {
  it('fires the breakpoint only when the displaced condition passes', () => {
    words(0x8000, [DTRACE_BREAKPOINT | 0x0, 0xe7f001f0]); // condition EQ
    core.setCpsr(0, ArmMode.SVC); // Z clear: EQ fails
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(core.stopPc(0) >>> 0).toBe(0x8004);
    core.setCpsr(0, ArmMode.SVC | 0x40000000); // Z set
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 10)).toBe(StopReason.DTRACE_BREAKPOINT);
    expect(core.stopPc(0) >>> 0).toBe(0x8000);
  });

  const EMUL = ArmEmulation;

  function state(): number[] {
    const out = [];
    for (let i = 0; i < 16; i++) out.push(reg(i));
    out.push(u(core.getCpsr(0)));
    for (let a = 0x8f00; a < 0x9000; a += 4) out.push(word32(a));
    return out;
  }

  it.each([
    ['PUSHM', EMUL.PUSHM, 0xe92d4810], // push {r4, r11, lr}
    ['POPM', EMUL.POPM, 0xe8bd8810], // pop {r4, r11, pc}
    ['LDR_IMM (literal)', EMUL.LDR_IMM, 0xe51f0004], // ldr r0, [pc, #-4]
    ['BX_LR', EMUL.BX_LR, 0xe12fff1e],
    ['MOV_PC_LR', EMUL.MOV_PC_LR, 0xe1a0f00e],
    ['MOV_IP_SP', EMUL.MOV_IP_SP, 0xe1a0c00d],
    ['CMP_IMM', EMUL.CMP_IMM, 0xe350000a],
    ['MOVW', EMUL.MOVW, 0xe3011234],
    ['MOV_IMM', EMUL.MOV_IMM, 0xe3a02cff],
    ['B', EMUL.B, 0xea00003e],
    ['B (bl)', EMUL.B, 0xeb00003e],
    ['SUB_SP', EMUL.SUB_SP, 0xe24dd010],
    ['LDM', EMUL.LDM, 0xe91ba810], // ldmdb r11, {r4, r11, sp, pc}
  ])('emulates %s exactly like native execution', (_name, code, word) => {
    const setup = () => {
      core.reset(0);
      core.setCpsr(0, ArmMode.SVC);
      for (let i = 0; i < 13; i++) core.setReg(0, i, 0x100 * i + 3);
      core.setReg(0, 11, 0x8f80);
      core.setReg(0, 13, 0x8f40);
      core.setReg(0, 14, 0x7000);
      const fill = new Uint32Array(64).map((_, i) => 0x6000 + i * 8);
      writeRam(core, 0x8f00, new Uint8Array(fill.buffer));
      words(0x8000, [0, 0, 0, 0]);
    };
    setup();
    words(0x8004, [word]);
    core.setReg(0, 15, 0x8004);
    core.run(0, 1);
    const native = state();
    setup();
    words(0x8004, [DTRACE_BREAKPOINT | (word >>> 28)]);
    core.setReg(0, 15, 0x8004);
    expect(core.run(0, 1)).toBe(StopReason.DTRACE_BREAKPOINT);
    core.clearPending(0);
    expect(core.emulate(0, code, word, 0x8004)).toBe(0);
    words(0x8004, [word]); // compare memory with the original text back in place
    const emulated = state();
    expect(emulated).toEqual(native);
  });

  it.each([
    ['a page it may write, its translation cached', 0x00401040, ArmMode.SVC],
    ['a block across two pages', 0x00401008 + 0x1000, ArmMode.SVC],
    ['an unaligned sp', 0x00401042, ArmMode.SVC],
    ['a page user mode may only read', 0x00400040, ArmMode.USR],
    ['no mapping', 0x00600040, ArmMode.SVC],
  ])('emulates push {r4-r11, lr} with the stack in %s exactly like native execution, the MMU on', (_name, sp, mode) => {
    const run = (emulated: boolean) => {
      core.reset(0);
      writeTestTables(2); // 0x00400000: 0x300000 user read-only, 0x301000-0x302fff full access
      writeRam(core, 0x300000, new Uint8Array(0x3000).fill(0x5a));
      // mcr TTBR0 ; mcr DACR ; mrc SCTLR ; orr #1 ; mcr SCTLR ; isb ; ldr r2, [r3] (caches the stack page) ; udf
      words(0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe5932000, 0xe7f001f0]);
      core.setReg(0, 0, 0x100000);
      core.setReg(0, 1, 1);
      core.setReg(0, 3, sp < 0x00600000 ? (sp - 4) & ~3 : 0x00401000);
      core.setReg(0, 15, 0x8000);
      expect(core.run(0, 20)).toBe(StopReason.UNDEFINED);
      core.setCpsr(0, mode);
      for (let i = 0; i < 13; i++) core.setReg(0, i, 0x1000 * i + 7);
      core.setReg(0, 13, sp);
      core.setReg(0, 14, 0x7000);
      const push = 0xe92d4ff0;
      words(0x8104, [emulated ? DTRACE_BREAKPOINT | 0xe : push]);
      core.setReg(0, 15, 0x8104);
      let reason = core.run(0, 1);
      if (!emulated && reason === StopReason.BUDGET) reason = 0; // ran: what emulate returns when done
      if (emulated) {
        expect(reason).toBe(StopReason.DTRACE_BREAKPOINT);
        core.clearPending(0);
        reason = core.emulate(0, EMUL.PUSHM, push, 0x8104);
        words(0x8104, [push]);
      }
      const out = [reason, core.faultStatus(0), core.faultAddress(0) >>> 0, core.retiredLow(0)];
      for (let i = 0; i < 16; i++) out.push(reg(i));
      out.push(u(core.getCpsr(0)));
      for (let a = 0x300000; a < 0x303000; a += 4) out.push(word32(a));
      return out;
    };
    expect(run(true)).toEqual(run(false));
  });

  it('drops decoded code that an emulated push stores over', () => {
    core.setCpsr(0, ArmMode.SVC);
    words(0x8200, [0xe3a00001, 0xe7f001f0]); // mov r0, #1 ; udf
    core.setReg(0, 15, 0x8200);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(1);
    // push {r4, r5} with sp just above that code writes mov r0, #2 ; udf over it.
    core.setReg(0, 4, 0xe3a00002);
    core.setReg(0, 5, 0xe7f001f0);
    core.setReg(0, 13, 0x8208);
    expect(core.emulate(0, EMUL.PUSHM, 0xe92d0030, 0x8000)).toBe(0);
    expect([reg(13), reg(15)]).toEqual([0x8200, 0x8004]);
    core.setReg(0, 15, 0x8200);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(2);
  });

  it('refuses an emulation code that does not match the instruction', () => {
    expect(core.emulate(0, EMUL.PUSHM, 0xe1a0f00e, 0x8000)).toBe(StopReason.UNDEFINED);
  });

  it('executes a displaced instruction as if at its original address', () => {
    core.setCpsr(0, ArmMode.SVC);
    words(0x8010, [0x11223344]);
    // ldr r0, [pc, #8] at 0x8000 reads 0x8010 wherever the word itself sits.
    expect(core.executeDisplaced(0, 0xe59f0008, 0x8000)).toBe(0);
    expect(reg(0)).toBe(0x11223344);
    expect(reg(15)).toBe(0x8004);
    // bl from 0x8000 links to 0x8004 and branches relative to 0x8000.
    expect(core.executeDisplaced(0, 0xeb00003e, 0x8000)).toBe(0);
    expect([reg(14), reg(15)]).toEqual([0x8004, 0x8100]);
  });
});

describe('several CPUs', () => {
  it('keeps separate state, TLBs and counters per CPU', async () => {
    core = await createArmCore('debug');
    expect(core.init(3, RAM)).toBe(0);
    // add r0, r0, #1 ; b .-4  (loop incrementing r0)
    words(0x8000, [0xe2800001, 0xeafffffd]);
    for (const cpu of [0, 1, 2]) {
      core.setReg(cpu, 0, cpu * 1000);
      core.setReg(cpu, 15, 0x8000);
    }
    expect(core.run(1, 10)).toBe(StopReason.BUDGET);
    expect(core.run(0, 4)).toBe(StopReason.BUDGET);
    expect(core.run(2, 6)).toBe(StopReason.BUDGET);
    expect(core.run(1, 10)).toBe(StopReason.BUDGET);
    expect([0, 1, 2].map((c) => u(core.getReg(c, 0)))).toEqual([2, 1010, 2003]);
    expect([0, 1, 2].map((c) => core.retiredLow(c))).toEqual([4, 20, 6]);
    // The home blocks the host can read agree after a sync through stateOffset.
    const at = core.stateOffset(1);
    expect(new DataView(core.memory.buffer).getUint32(at, true)).toBe(1010);
    // An out-of-range CPU index neither traps nor runs.
    expect(core.run(7, 10)).toBe(StopReason.UNDEFINED);
    expect(() => core.getReg(7, 0)).not.toThrow();
  });

  it('has each CPU state in place: the active block for the CPU that last ran, the home blocks for the others', async () => {
    core = await createArmCore('debug');
    expect(core.init(2, RAM)).toBe(0);
    // 0x8000: add r0, r0, #1 ; mcr p15, 0, r1, c2, c0, 0 (TTBR0) ; udf #0x12
    words(0x8000, [0xe2800001, 0xee021f10, 0xe7f001f2]);
    for (const cpu of [0, 1]) {
      core.setReg(cpu, 0, cpu * 100);
      core.setReg(cpu, 1, 0x4000 * (cpu + 1));
      core.setReg(cpu, 15, 0x8000);
    }
    expect(core.run(1, 10)).toBe(StopReason.UNDEFINED);
    expect(core.run(0, 1)).toBe(StopReason.BUDGET);
    const mem = () => new DataView(core.memory.buffer);
    const active = core.activeStateOffset();
    const word = (block: number, offset: number) => mem().getUint32(block + offset, true);
    // CPU 0 ran last: its state is live in the active block, CPU 1's at home.
    expect(word(active, ArmState.CPU_ID)).toBe(0);
    const home1 = core.homeStateOffset(1);
    expect(word(home1, ArmState.CPU_ID)).toBe(1);
    expect([word(active, ArmState.R0), word(active, ArmState.R0 + 15 * 4)]).toEqual([1, 0x8004]);
    expect([word(home1, ArmState.R0), word(home1, ArmState.R0 + 15 * 4)]).toEqual([101, 0x8008]);
    expect(word(home1, ArmState.TTBR0)).toBe(0x8000);
    expect([word(home1, ArmState.RETIRED), word(home1, ArmState.RETIRED + 4)]).toEqual([2, 0]);
    expect(word(active, ArmState.RETIRED)).toBe(core.retiredLow(0));
    expect(word(home1, ArmState.STOP_REASON)).toBe(StopReason.UNDEFINED);
    expect(word(home1, ArmState.STOP_PC)).toBe(core.stopPc(1) >>> 0);
    expect(word(home1, ArmState.STOP_WORD)).toBe(0xe7f001f2);
    expect(word(home1, ArmState.PENDING_EXC)).toBe(ArmException.UNDEFINED);
    expect(word(home1, ArmState.CPSR_CTL) & 0x3f).toBe(core.getCpsr(1) & 0x3f);
    // Asking for CPU 1 makes its block the active one; the words are the same.
    expect(core.pendingException(1)).toBe(ArmException.UNDEFINED);
    expect(word(active, ArmState.CPU_ID)).toBe(1);
    expect(word(active, ArmState.R0)).toBe(101);
    // A register or the pending exception written in place is what the core then has.
    mem().setUint32(active + ArmState.R0 + 2 * 4, 0xabcd, true);
    mem().setUint32(active + ArmState.PENDING_EXC, 0, true);
    expect(core.getReg(1, 2) >>> 0).toBe(0xabcd);
    core.deliverStop(1); // nothing pending: nothing delivered
    expect(core.getReg(1, 15) >>> 0).toBe(0x8008);
    expect(core.getCpsr(1) & 0x1f).toBe(ArmMode.SVC);
  });
});

describe('interrupts raised by devices', () => {
  it('takes an IRQ asserted from an MMIO write right after the store', async () => {
    const cores: ArmCoreExports[] = [];
    core = await createArmCore('debug', {
      mmioWrite: (cpu, _pa, _size, value) => {
        cores[0]!.setIrqLine(1, value); // raise the other CPU's line from inside run()
        cores[0]!.setIrqLine(cpu, value);
        expect(() => cores[0]!.getReg(1, 0)).not.toThrow(); // no CPU switch while running
      },
    });
    cores.push(core);
    core.init(2, RAM);
    // str r5, [r6] ; mov r0, #1 ; udf
    words(0x8000, [0xe5865000, 0xe3a00001, 0xe7f001f0]);
    core.setCpsr(0, ArmMode.SVC); // I clear
    core.setReg(0, 5, 1);
    core.setReg(0, 6, 0xf0000000);
    core.setReg(0, 15, 0x8000);
    core.run(0, 2); // the store, then the IRQ at the next boundary and one vector instruction
    expect(reg(15)).toBe(0x18 + 4);
    expect(reg(14)).toBe(0x8008);
    expect(reg(0)).toBe(0); // the mov after the store has not run
    core.setCpsr(1, ArmMode.SVC);
    core.setReg(1, 15, 0x8004);
    core.run(1, 1);
    expect(u(core.getCpsr(1)) & 0x1f).toBe(ArmMode.IRQ);
  });
});

describe('alignment', () => {
  it('allows unaligned ldr with SCTLR.A clear, faults with it set, and always faults unaligned ldm', () => {
    words(0x9000, [0x44332211, 0x88776655]);
    // ldr r0, [r1] ; udf           at 0x8000
    words(0x8000, [0xe5910000, 0xe7f001f0]);
    core.setReg(0, 1, 0x9001);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(0x55443322);
    // mrc SCTLR ; orr #2 ; mcr SCTLR ; ldr r0, [r1]
    words(0x8100, [0xee112f10, 0xe3822002, 0xee012f10, 0xe5910000]);
    core.setReg(0, 15, 0x8100);
    expect(core.run(0, 10)).toBe(StopReason.DATA_ABORT);
    expect(core.faultStatus(0) & 0x40f).toBe(0x01);
    expect(core.faultAddress(0) >>> 0).toBe(0x9001);
    // ldm r1, {r2, r3} with SCTLR.A clear still needs word alignment.
    core.reset(0);
    words(0x8200, [0xe891000c]);
    core.setReg(0, 1, 0x9002);
    core.setReg(0, 15, 0x8200);
    expect(core.run(0, 10)).toBe(StopReason.DATA_ABORT);
    expect(core.faultStatus(0) & 0x40f).toBe(0x01);
  });
});

describe('host errors', () => {
  it('survives an exception thrown by an MMIO callback', async () => {
    let fail = true;
    core = await createArmCore('debug', {
      mmioRead: () => {
        if (fail) throw new Error('device exploded');
        return 3;
      },
    });
    core.init(2, RAM);
    words(0x8000, [0xe5943000, 0xe7f001f0]); // ldr r3, [r4] ; udf
    for (const cpu of [0, 1]) {
      core.setReg(cpu, 4, 0xf0000000);
      core.setReg(cpu, 15, 0x8000);
    }
    expect(() => core.run(1, 10)).toThrow(/device exploded/);
    fail = false;
    core.setReg(0, 3, 0x77); // reaches CPU 0, not the CPU that was running
    expect(u(core.getReg(1, 3))).toBe(0);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(reg(3)).toBe(3);
    expect(u(core.getReg(1, 3))).toBe(0);
  });
});

describe('MMU permissions on TLB hits', () => {
  it('faults a User write to a read-only page after a User read cached its translation', () => {
    writeTestTables(0); // 0x00400000: 0x300000 user read-only
    words(0x300000, [0x600d]);
    // mcr TTBR0 ; mcr DACR ; mrc SCTLR ; orr #1 ; mcr SCTLR ; isb ; udf    then user code at 0x8100
    words(0x8000, [0xee020f10, 0xee031f10, 0xee112f10, 0xe3822001, 0xee012f10, 0xf57ff06f, 0xe7f001f0]);
    words(0x8100, [0xe5963000, 0xe5965000, 0xe5865000, 0xe7f001f0]); // ldr r3, [r6] ; ldr r5, [r6] ; str r5, [r6] ; udf
    core.setReg(0, 0, 0x100000);
    core.setReg(0, 1, 1);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 20)).toBe(StopReason.UNDEFINED);
    core.setCpsr(0, ArmMode.USR);
    core.setReg(0, 6, 0x00400000);
    core.setReg(0, 15, 0x8100);
    expect(core.run(0, 20)).toBe(StopReason.DATA_ABORT);
    expect(reg(3)).toBe(0x600d);
    expect(core.stopPc(0) >>> 0).toBe(0x8108);
    expect(core.faultStatus(0) & 0xc0f).toBe(0x80f); // write, permission fault (page)
    expect(word32(0x300000)).toBe(0x600d);
  });
});

describe('exception loops', () => {
  it('returns to the host at the budget when a vector fetch keeps taking prefetch aborts', () => {
    // mcr p15, 0, r0, c12, c0, 0 (VBAR = 0xE0000000, not RAM) ; bx r0
    words(0x8000, [0xee0c0f10, 0xe12fff10]);
    core.setStopMask(0, (1 << ArmException.UNDEFINED) | (1 << ArmException.BKPT) | (1 << ArmException.DTRACE_BREAKPOINT));
    core.setReg(0, 0, 0xe0000000);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 1000)).toBe(StopReason.BUDGET);
    expect(core.retiredLow(0)).toBe(2);
    expect(reg(15)).toBe(0xe000000c);
    expect(u(core.getCpsr(0)) & 0x1f).toBe(ArmMode.ABT);
  });
});

describe('device callbacks during run', () => {
  it('see the exact retired count and can stop the CPU after the current instruction', async () => {
    const seen: number[] = [];
    let stopAt = -1;
    core = await createArmCore('debug', {
      mmioRead: () => {
        seen.push(core.retiredLow(0));
        if (seen.length === stopAt) core.requestStop();
        return 7;
      },
    });
    core.init(1, RAM);
    // 0x8000: mov r1, #1 ; ldr r0, [r6] ; add r1, r1, #1 ; ldm r6, {r2, r3} ; ldr r4, [r6, r1] ; add r1, r1, #1 ; b .
    words(0x8000, [0xe3a01001, 0xe5960000, 0xe2811001, 0xe896000c, 0xe7964001, 0xe2811001, 0xeafffffe]);
    core.setReg(0, 6, 0xf0000000);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 4)).toBe(StopReason.BUDGET);
    expect(seen).toEqual([1, 3, 3]); // ldr after one instruction, both ldm words after three
    expect(core.retiredLow(0)).toBe(4);
    // requestStop from the next device read: the ldr completes, nothing after it runs.
    stopAt = 4;
    expect(core.run(0, 1000)).toBe(StopReason.BUDGET);
    expect(seen).toEqual([1, 3, 3, 4]);
    expect(core.retiredLow(0)).toBe(5);
    expect(reg(4)).toBe(7);
    expect(reg(15)).toBe(0x8014);
    expect(reg(1)).toBe(2);
    // The request does not outlive its run, and outside run() it is ignored.
    core.requestStop();
    expect(core.run(0, 100)).toBe(StopReason.BUDGET);
    expect(core.retiredLow(0)).toBe(105);
  });
});

describe('exclusive monitor across CPUs', () => {
  it('fails a strex whose ldrex ran in an earlier run() call, so two CPUs cannot both win a lock', async () => {
    core = await createArmCore('debug');
    core.init(2, RAM);
    // ldrex r1, [r0] ; strex r2, r3, [r0] ; udf
    words(0x8000, [0xe1901f9f, 0xe1802f93, 0xe7f001f0]);
    for (const cpu of [0, 1]) {
      core.setReg(cpu, 0, 0x9000);
      core.setReg(cpu, 3, cpu + 1);
      core.setReg(cpu, 15, 0x8000);
    }
    expect(core.run(0, 1)).toBe(StopReason.BUDGET); // CPU 0: ldrex reads 0, its turn ends
    expect(core.run(1, 10)).toBe(StopReason.UNDEFINED); // CPU 1: ldrex, strex wins
    expect(u(core.getReg(1, 2))).toBe(0);
    expect(word32(0x9000)).toBe(2);
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED); // CPU 0: its strex must fail
    expect(u(core.getReg(0, 1))).toBe(0);
    expect(u(core.getReg(0, 2))).toBe(1);
    expect(word32(0x9000)).toBe(2);
  });

  it('keeps the monitor across turns of the same CPU when no other CPU ran in between', async () => {
    core = await createArmCore('debug');
    core.init(2, RAM);
    words(0x8000, [0xe1901f9f, 0xe1802f93, 0xe7f001f0]); // ldrex r1, [r0] ; strex r2, r3, [r0] ; udf
    core.setReg(0, 0, 0x9000);
    core.setReg(0, 3, 7);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 1)).toBe(StopReason.BUDGET); // ldrex; a host stop (a probe) between ldrex and strex
    expect(core.run(0, 10)).toBe(StopReason.UNDEFINED);
    expect(u(core.getReg(0, 2))).toBe(0); // strex succeeded
    expect(word32(0x9000)).toBe(7);
  });
});
