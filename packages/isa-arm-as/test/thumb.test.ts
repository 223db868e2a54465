// Thumb state in the ARMv7-A core: interworking (blx, bx, pop and blx
// register between A32 and T32), IT blocks, exceptions taken from and
// returning to Thumb code (links, SPSR.T and ITSTATE, SCTLR.TE), an
// interrupt between the instructions of an IT block, the Thumb DTrace
// breakpoints with displaced execution, exact decode-cache invalidation of
// Thumb code, and a 32-bit instruction across a page boundary. Programs are
// machine code linked at the addresses shown (llvm-mc and ld.lld; the
// source is beside each).
import { beforeEach, describe, expect, it } from 'vitest';
import { ArmEmulation, ArmMode, createArmCore, DTRACE_BREAKPOINT_T16, DTRACE_BREAKPOINT_T32, StopReason, writeRam, type ArmCoreExports } from '../src/index.js';

let core: ArmCoreExports;
const T = 0x20; // CPSR.T

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
const load = (at: number, hex: string): void => writeRam(core, at, hexBytes(hex));
const halfword = (at: number, value: number): void => writeRam(core, at, new Uint8Array([value & 0xff, value >>> 8]));
const reg = (n: number): number => core.getReg(0, n) >>> 0;
const cpsr = (): number => core.getCpsr(0) >>> 0;
/** ITSTATE from a PSR value (bits 15:10 and 26:25). */
const itOf = (psr: number): number => (((psr >>> 10) & 0x3f) << 2) | ((psr >>> 25) & 3);

beforeEach(async () => {
  core = await createArmCore('debug');
  expect(core.init(1, 4 << 20)).toBe(0);
});

describe('Thumb state', () => {
  it('interworks with A32 through blx, bx, blx register and pop {pc}, and runs IT blocks', () => {
    // 0x8000 .arm:  mov r0, #0 ; blx thumb_fn ; mov r5, #7 ; ldr r6, =arm_fn ; blx r6 ; udf #17
    //   arm_fn:     mov r8, #3 ; bx lr
    // thumb_fn (0x8024): movs r1, #1 ; cmp r1, #1 ; itte eq ; moveq r2, #5 ; addeq r3, r2, #1 ; movne r4, #9
    //   push {r4, lr} ; adr r7, back ; adds r7, #1 ; mov r9, r7 ; ldr r10, =arm_leaf ; blx r10
    //   back: nop ; pop {r4, pc}
    // arm_leaf (0x8048): mov r11, #12 ; bx lr
    load(0x8000, '0000a0e3060000fa0750a0e30c609fe536ff2fe1f101f0e70380a0e31eff2fe1188000000121012906bf0522531c092410b50ff20c070137b946dff808a0d04700bf10bd488000000cb0a0e31eff2fe1');
    core.setCpsr(0, ArmMode.USR);
    core.setReg(0, 4, 0x44);
    core.setReg(0, 13, 0x10000);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(core.stopPc(0) >>> 0).toBe(0x8014);
    expect(cpsr() & T).toBe(0); // back in A32 for the udf
    expect([reg(1), reg(2), reg(3), reg(4), reg(5), reg(8), reg(9), reg(11)]).toEqual([1, 5, 6, 0x44, 7, 3, 0x8041, 12]);
    expect(reg(13)).toBe(0x10000);
  });

  it('takes svc and undefined instructions from Thumb with the right links, SPSR.T and ITSTATE, and returns into the IT block', () => {
    // 0x8000: movs r0, #1 ; cmp r0, #1 ; ite eq ; svceq #5 ; movne r1, #7 ; movs r2, #2 ; udf #3 ; movs r3, #3 ; udf #4
    load(0x8000, '012001280cbf05df0721022203de032304de');
    // 0x2000 .arm: b . ; b und ; b svc ; und: mov r10, lr ; mrs r11, spsr ; movs pc, lr ; svc: mov r8, lr ; mrs r9, spsr ; movs pc, lr
    load(0x2000, 'feffffea000000ea020000ea0ea0a0e100b04fe10ef0b0e10e80a0e100904fe10ef0b0e1');
    core.setBankedRegister(0, ArmMode.SVC, 13, 0x7000);
    core.setCpsr(0, ArmMode.SVC);
    core.setReg(0, 0, 0x2000);
    writeRam(core, 0x7000, new Uint8Array([0x10, 0x0f, 0x0c, 0xee, 0x00, 0xf0, 0x20, 0xe3])); // mcr p15, 0, r0, c12, c0, 0 (VBAR) ; nop
    core.setReg(0, 15, 0x7000);
    expect(core.run(0, 2)).toBe(StopReason.BUDGET);
    core.setCpsr(0, ArmMode.USR | T);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(core.stopPc(0) >>> 0).toBe(0x800c);
    expect(reg(8)).toBe(0x8008); // LR_svc: the svc's address + 2
    expect(reg(9) & 0x3f).toBe(ArmMode.USR | T);
    expect(itOf(reg(9))).toBe(0x18); // the ITSTATE of the else slot (ne), after the svc
    expect([reg(1), reg(2)]).toEqual([0, 2]); // movne skipped after the return
    core.deliverStop(0); // the unclaimed undefined instruction goes to the guest
    expect(reg(14)).toBe(0x800e); // LR_und: the udf's address + 2
    expect(cpsr() & T).toBe(0);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(core.stopPc(0) >>> 0).toBe(0x8010);
    expect(reg(3)).toBe(3);
    expect(reg(10)).toBe(0x800e);
  });

  it('enters exception handlers in Thumb state when SCTLR.TE is set', () => {
    // 0x8000: svc #1 ; movs r1, #1 ; udf #2      0x2008 .thumb: mov r8, lr ; mrs r9, cpsr ; subs pc, lr, #0
    load(0x8000, '01df012102de');
    load(0x2000, '0000000000000000f046eff30089def3008f');
    core.setCpsr(0, ArmMode.SVC);
    core.setReg(0, 0, 0x2000);
    core.setReg(0, 1, 0x40000000);
    // mcr p15, 0, r0, c12, c0, 0 (VBAR) ; mrc p15, 0, r2, c1, c0, 0 ; orr r2, r2, r1 ; mcr p15, 0, r2, c1, c0, 0 (SCTLR.TE)
    writeRam(core, 0x7000, new Uint8Array([0x10, 0x0f, 0x0c, 0xee, 0x10, 0x2f, 0x11, 0xee, 0x01, 0x20, 0x82, 0xe1, 0x10, 0x2f, 0x01, 0xee]));
    core.setReg(0, 15, 0x7000);
    expect(core.run(0, 4)).toBe(StopReason.BUDGET);
    core.setCpsr(0, ArmMode.USR | T);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(8)).toBe(0x8002);
    expect(reg(9) & 0x1f).toBe(ArmMode.SVC); // the handler's Thumb code ran (mrs reads T as 0)
    expect(reg(1)).toBe(1);
    expect(core.stopPc(0) >>> 0).toBe(0x8004);
  });

  it('takes an interrupt between the instructions of an IT block and resumes the block', () => {
    // 0x8000: cmp r0, r0 ; itete eq ; moveq r1, #1 ; movne r2, #2 ; moveq r3, #3 ; movne r4, #4 ; udf #1
    load(0x8000, '80420bbf012102220323042401de');
    // 0x2018 .arm (IRQ): mrs r11, spsr ; mov r12, lr ; subs pc, lr, #4
    load(0x2018, '00b04fe10ec0a0e104f05ee2');
    core.setCpsr(0, ArmMode.SVC);
    core.setReg(0, 0, 0x2000);
    writeRam(core, 0x7000, new Uint8Array([0x10, 0x0f, 0x0c, 0xee])); // VBAR = r0
    core.setReg(0, 15, 0x7000);
    expect(core.run(0, 1)).toBe(StopReason.BUDGET);
    core.setCpsr(0, ArmMode.USR | T);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 3)).toBe(StopReason.BUDGET); // cmp, itete, moveq
    core.setIrqLine(0, 1);
    expect(core.run(0, 1)).toBe(StopReason.BUDGET); // taken at the boundary; the handler's first instruction runs
    core.setIrqLine(0, 0);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(12)).toBe(0x8006 + 4); // LR_irq: the next instruction (movne) + 4
    expect(itOf(reg(11))).toBe(0x16); // movne's slot: condition ne, two more after it
    expect(reg(11) & T).toBe(T);
    expect([reg(1), reg(2), reg(3), reg(4)]).toEqual([1, 0, 3, 0]);
  });

  it('fires the Thumb breakpoints only when their IT condition passes and continues by displaced execution', () => {
    // 0x8000: movs r0, #0 ; cmp r0, #1 ; ite eq ; moveq r1, #1 (0x8006) ; movne r2, #2 ; mov.w r3, #3 (0x800a)
    //         movs r4, #4 ; cmp r0, #0 ; itt eq ; addeq r5, r5, #1 (0x8014) ; addeq r6, r6, #1 ; udf #1
    load(0x8000, '002001280cbf012102224ff003030424002804bf6d1c761c01de');
    // Probes written as fbt would: the 16-bit breakpoint over 16-bit instructions, the 32-bit one over mov.w.
    halfword(0x8006, DTRACE_BREAKPOINT_T16);
    halfword(0x800a, DTRACE_BREAKPOINT_T32 >>> 16);
    halfword(0x800c, DTRACE_BREAKPOINT_T32 & 0xffff);
    halfword(0x8014, DTRACE_BREAKPOINT_T16);
    core.setCpsr(0, ArmMode.USR | T);
    core.setReg(0, 15, 0x8000);
    // The breakpoint at 0x8006 sits in the IT block's eq slot with Z clear: skipped like moveq.
    expect(core.run(0, 100)).toBe(StopReason.DTRACE_BREAKPOINT);
    expect(core.stopPc(0) >>> 0).toBe(0x800a);
    expect(core.stopWord(0) >>> 0).toBe(DTRACE_BREAKPOINT_T32);
    expect([reg(1), reg(2)]).toEqual([0, 2]);
    core.clearPending(0);
    expect(core.executeDisplacedT32(0, 0xf04f0303, 0x800a)).toBe(0); // mov.w r3, #3
    expect(reg(15)).toBe(0x800e);
    expect(core.run(0, 100)).toBe(StopReason.DTRACE_BREAKPOINT);
    expect(core.stopPc(0) >>> 0).toBe(0x8014);
    expect(itOf(cpsr())).toBe(0x04); // still the breakpoint's slot: eq, one more after it
    core.clearPending(0);
    expect(core.executeDisplacedT32(0, 0x1c6d, 0x8014)).toBe(0); // addeq r5, r5, #1
    expect(itOf(cpsr())).toBe(0x08); // advanced to the block's last slot
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(core.stopPc(0) >>> 0).toBe(0x8018);
    expect([reg(3), reg(4), reg(5), reg(6)]).toEqual([3, 4, 1, 1]);
    expect(cpsr() & 0x40000000).toBe(0x40000000); // addeq in the block left Z alone
  });

  it('executes displaced Thumb instructions with their pc-relative meaning', () => {
    core.setCpsr(0, ArmMode.USR | T);
    expect(core.executeDisplacedT32(0, 0xa701, 0x8002)).toBe(0); // adr r7, #4 at 0x8002: Align(0x8006, 4) + 4
    expect(reg(7)).toBe(0x8008);
    expect(reg(15)).toBe(0x8004);
    expect(core.executeDisplacedT32(0, 0xf000f800, 0x9000)).toBe(0); // bl 0x9004 at 0x9000
    expect(reg(14)).toBe(0x9005);
    expect(reg(15)).toBe(0x9004);
    expect(core.executeDisplacedT32(0, 0x4770, 0x9004)).toBe(0); // bx lr: Thumb again
    expect(reg(15)).toBe(0x9004);
    expect(cpsr() & T).toBe(T);
    // A word that is only the first half of a 32-bit instruction is undefined.
    expect(core.executeDisplacedT32(0, 0xf04f, 0x9004)).toBe(StopReason.UNDEFINED);
  });

  it('invalidates decoded Thumb code when a store changes the second halfword of a 32-bit instruction', () => {
    // 0x8000: movs r3, #0 ; loop: adr.w r2, target ; nop ; nop ; target (0x800a): mov.w r0, #1 ; cbnz r3, done
    //         movs r1, #5 ; strh r1, [r2, #2] ; movs r3, #1 ; b loop ; done: udf #1
    load(0x8000, '00230ff2060200bf00bf4ff001001bb9052151800123f4e701de');
    core.setCpsr(0, ArmMode.USR | T);
    core.setReg(0, 15, 0x8000);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(5); // the second pass ran mov.w r0, #5
    expect(core.stopPc(0) >>> 0).toBe(0x8018);
  });

  it('runs a 32-bit instruction whose halves are on two pages', () => {
    // 0x8ffc: nop ; mov.w r0, #0x42 (0x8ffe) ; udf #1
    load(0x8ffc, '00bf4ff0420001de');
    core.setCpsr(0, ArmMode.USR | T);
    core.setReg(0, 15, 0x8ffc);
    expect(core.run(0, 100)).toBe(StopReason.UNDEFINED);
    expect(reg(0)).toBe(0x42);
    expect(core.stopPc(0) >>> 0).toBe(0x9002);
    expect(core.retiredLow(0)).toBe(2);
  });

  // The Thumb prologue/epilogue emulations: each runs its instruction as
  // native execution would (registers, flags, memory, pc), after checking
  // that the word is of its class.
  const TE = ArmEmulation;
  const thumbState = (): number[] => {
    const out = [];
    for (let i = 0; i < 16; i++) out.push(reg(i));
    out.push(cpsr());
    const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
    for (let a = 0x8f00; a < 0x9000; a += 4) out.push(view.getUint32(a, true));
    return out;
  };
  /** Writes a T32 value (16-bit, or first << 16 | second) at `at`. */
  const t32 = (at: number, v: number): void => {
    if (v > 0xffff) {
      halfword(at, v >>> 16);
      halfword(at + 2, v & 0xffff);
    } else halfword(at, v);
  };
  it.each([
    ['push {r4, r7, lr}', TE.T_PUSH, 0xb590],
    ['push.w {r4-r8, lr}', TE.T_PUSH, 0xe92d41f0],
    ['str r8, [sp, #-4]!', TE.T_PUSH, 0xf84d8d04],
    ['pop {r4, r7, pc}', TE.T_POP, 0xbd90],
    ['pop.w {r4-r8, pc}', TE.T_POP, 0xe8bd81f0],
    ['ldr r8, [sp], #4', TE.T_POP, 0xf85d8b04],
    ['bx lr', TE.T_BX_LR, 0x4770],
    ['mov r7, sp', TE.T_MOV_FP_SP, 0x466f],
    ['add r7, sp, #8', TE.T_ADD_FP_SP, 0xaf02],
    ['add.w r7, sp, #280', TE.T_ADD_FP_SP, 0xf50d778c],
    ['sub sp, #16', TE.T_SUB_SP, 0xb084],
    ['sub.w sp, sp, #1024', TE.T_SUB_SP, 0xf5ad6d80],
    ['ldr r3, [sp, #8]', TE.T_LDR_SP, 0x9b02],
    ['ldr.w r9, [sp, #100]', TE.T_LDR_SP, 0xf8dd9064],
    ['str r2, [sp, #12]', TE.T_STR_SP, 0x9203],
    ['str.w r10, [sp, #200]', TE.T_STR_SP, 0xf8cda0c8],
  ])('emulates %s exactly like native execution', (_name, code, value) => {
    const wide = value > 0xffff;
    const setup = (): void => {
      core.reset(0);
      core.setCpsr(0, ArmMode.SVC | T);
      for (let i = 0; i < 13; i++) core.setReg(0, i, 0x100 * i + 3);
      core.setReg(0, 13, 0x8f40);
      core.setReg(0, 14, 0x7001); // a Thumb return address
      const fill = new Uint32Array(64).map((_, i) => 0x6001 + i * 8);
      writeRam(core, 0x8f00, new Uint8Array(fill.buffer));
    };
    setup();
    t32(0x8004, value);
    core.setReg(0, 15, 0x8004);
    core.run(0, 1);
    const native = thumbState();
    setup();
    t32(0x8004, wide ? DTRACE_BREAKPOINT_T32 : DTRACE_BREAKPOINT_T16);
    core.setReg(0, 15, 0x8004);
    expect(core.run(0, 1)).toBe(StopReason.DTRACE_BREAKPOINT);
    core.clearPending(0);
    expect(core.emulationMatches(code, value)).toBe(1);
    expect(core.emulate(0, code, value, 0x8004)).toBe(0);
    t32(0x8004, value);
    expect(thumbState()).toEqual(native);
  });

  it('refuses a Thumb emulation code that does not fit the instruction', () => {
    expect(core.emulationMatches(TE.T_PUSH, 0xbd90)).toBe(0); // pop
    expect(core.emulationMatches(TE.T_POP, 0xe8bd41f0)).toBe(1);
    expect(core.emulationMatches(TE.T_POP, 0xe8b441f0)).toBe(0); // ldmia r4!, not sp
    expect(core.emulationMatches(TE.T_BX_LR, 0x4718)).toBe(0); // bx r3
    expect(core.emulationMatches(TE.T_MOV_FP_SP, 0x4668)).toBe(0); // mov r0, sp
    expect(core.emulationMatches(TE.T_ADD_FP_SP, 0xa802)).toBe(0); // add r0, sp, #8
    expect(core.emulationMatches(TE.T_SUB_SP, 0xf1ad0d10)).toBe(1); // sub.w sp, sp, #16
    expect(core.emulationMatches(TE.T_SUB_SP, 0xf1bd0d10)).toBe(0); // subs.w sp, sp, #16: sets flags
    expect(core.emulationMatches(TE.T_LDR_SP, 0xf8ddf064)).toBe(0); // ldr.w pc, [sp, #100]
    expect(core.emulationMatches(TE.T_STR_SP, 0xf8c3a0c8)).toBe(0); // str.w r10, [r3, #200]
    expect(core.emulationMatches(TE.T_PUSH, 0xe92d)).toBe(0); // half of a 32-bit instruction
    core.setCpsr(0, ArmMode.SVC | T);
    expect(core.emulate(0, TE.T_PUSH, 0x4770, 0x8000)).toBe(StopReason.UNDEFINED);
  });
});
