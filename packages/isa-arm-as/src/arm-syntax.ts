// UAL spelling shared by the A32 and T32 describers, as llvm-objdump prints
// it: register and condition names, register lists, immediate shifts,
// barrier options, banked registers, and the provider classes both
// describers report. Pure data and functions, no I/O.

/** Condition-field suffixes, index = cond (14 = always, printed empty). */
export const CONDITION_NAMES = ['eq', 'ne', 'hs', 'lo', 'mi', 'pl', 'vs', 'vc', 'hi', 'ls', 'ge', 'lt', 'gt', 'le', '', ''] as const;

/** Register names as llvm-objdump prints them. */
export const REGISTER_NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'sp', 'lr', 'pc'] as const;

/** Classes the DTrace providers look for when walking functions (both instruction sets). */
export type ArmClass =
  | 'push' // stmdb sp!, {...} or str rX, [sp, #-4]! (push in either set)
  | 'pop' // ldm sp!, {...} or ldr rX, [sp], #4
  | 'ldm-pc' // any ldm whose list includes pc
  | 'bx-lr'
  | 'mov-pc-lr'
  | 'branch' // b/bl/blx/cbz with an immediate target
  | 'call' // bl/blx (immediate or register)
  | 'indirect-branch' // bx/blx register, tbb/tbh, or a write to pc other than the above
  | 'pc-relative-load' // ldr rX, [pc, #imm] (literal pool)
  | 'pc-relative' // any operand computed from the pc (adr, literal loads, add rX, pc)
  | 'mov-ip-sp'
  | 'mov-fp-sp' // mov r7, sp (Thumb frame pointer set-up)
  | 'add-fp-sp' // add r7, sp, #imm / add r11, sp, #imm
  | 'sub-sp' // sub sp, sp, #imm (sub sp, #imm)
  | 'movw'
  | 'movt'
  | 'cmp-imm'
  | 'mov-imm'
  | 'it' // the IT instruction
  | 'svc'
  | 'udf'
  | 'bkpt'
  | 'exclusive' // ldrex*/strex*/clrex
  | 'writes-pc'
  | 'vfp' // VFP (VFPv3-D16); with 'undefined' the rest of the space (Advanced SIMD, forms D16 lacks)
  | 'undefined';

export const r = (n: number): string => REGISTER_NAMES[n & 15]!;
export const hex = (v: number): string => '0x' + (v >>> 0).toString(16);
export const rotr = (v: number, n: number): number => (n === 0 ? v >>> 0 : ((v >>> n) | (v << (32 - n))) >>> 0);
export const SHIFT_NAMES = ['lsl', 'lsr', 'asr', 'ror'] as const;

/** An immediate shift of a register operand as llvm prints it (', lsl #3', ', rrx', '' for none). */
export function shiftImm(type: number, imm5: number): string {
  if (type === 0 && imm5 === 0) return '';
  if (type === 3 && imm5 === 0) return ', rrx';
  const amount = imm5 === 0 ? 32 : imm5;
  return `, ${SHIFT_NAMES[type]} #${amount}`;
}

/** '{r0, r4, lr}' for a register list. */
export function regList(list: number): string {
  const names: string[] = [];
  for (let i = 0; i < 16; i++) if (list & (1 << i)) names.push(r(i));
  return `{${names.join(', ')}}`;
}

export const bitCount = (x: number): number => {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
};

/** Banked registers of mrs/msr (banked) by SYSm (B9.2.3). */
export const BANKED_NAMES: Record<number, string> = {
  0x00: 'r8_usr', 0x01: 'r9_usr', 0x02: 'r10_usr', 0x03: 'r11_usr', 0x04: 'r12_usr', 0x05: 'sp_usr', 0x06: 'lr_usr',
  0x08: 'r8_fiq', 0x09: 'r9_fiq', 0x0a: 'r10_fiq', 0x0b: 'r11_fiq', 0x0c: 'r12_fiq', 0x0d: 'sp_fiq', 0x0e: 'lr_fiq',
  0x10: 'lr_irq', 0x11: 'sp_irq', 0x12: 'lr_svc', 0x13: 'sp_svc', 0x14: 'lr_abt', 0x15: 'sp_abt', 0x16: 'lr_und', 0x17: 'sp_und',
  0x1c: 'lr_mon', 0x1d: 'sp_mon', 0x1e: 'elr_hyp', 0x1f: 'sp_hyp',
  0x2e: 'spsr_fiq', 0x30: 'spsr_irq', 0x32: 'spsr_svc', 0x34: 'spsr_abt', 0x36: 'spsr_und', 0x3c: 'spsr_mon', 0x3e: 'spsr_hyp',
};

/** dmb/dsb options by their 4-bit field. */
export const BARRIER_OPTIONS: Record<number, string> = {
  15: 'sy', 14: 'st', 13: 'ld', 11: 'ish', 10: 'ishst', 9: 'ishld', 7: 'nsh', 6: 'nshst', 5: 'nshld', 3: 'osh', 2: 'oshst', 1: 'oshld',
};

/** The PSR a msr writes, by its R bit and byte mask: APSR_nzcvq/g forms where llvm uses them. */
export function psrName(spsr: number, mask: number): string {
  if (!spsr && (mask === 8 || mask === 4 || mask === 12)) {
    return 'APSR_' + (mask & 8 ? 'nzcvq' : '') + (mask & 4 ? 'g' : '');
  }
  return `${spsr ? 'SPSR' : 'CPSR'}_${mask & 8 ? 'f' : ''}${mask & 4 ? 's' : ''}${mask & 2 ? 'x' : ''}${mask & 1 ? 'c' : ''}`;
}

/** What both describers report for one instruction. */
export interface ArmInstruction {
  /** The A32 word, or the T32 halfword / first << 16 | second. */
  readonly word: number;
  readonly address: number;
  /** Encoding name from a32.decode or t32.decode ('UNDEFINED' when none matches). */
  readonly encoding: string;
  /** Condition 0-14 (from the condition field, or the IT block in T32), or 15 for unconditional encodings. */
  readonly cond: number;
  /** llvm-objdump mnemonic including condition suffix (and .w), or '<unknown>'. */
  readonly mnemonic: string;
  /** Operands as llvm-objdump prints them (branch targets as 0x... hex). */
  readonly operands: string;
  /** mnemonic + tab + operands. */
  readonly text: string;
  readonly classes: ReadonlySet<ArmClass>;
  /** Register list (bit n = rn) for ldm/stm/push/pop. */
  readonly registerList?: number;
  /** Branch target for b/bl/blx immediate (and cbz/cbnz). */
  readonly target?: number;
  /** Literal address for pc-relative loads. */
  readonly literalAddress?: number;
  /** Immediate value for movw/movt/mov-imm/cmp-imm/sub-sp/svc/udf/bkpt (and add-fp-sp). */
  readonly immediate?: number;
}

/** Builder state a describer fills in; `finish` turns it into an ArmInstruction. */
export interface Described {
  mnemonic: string;
  operands: string;
  classes: Set<ArmClass>;
  registerList?: number;
  target?: number;
  literalAddress?: number;
  immediate?: number;
}

export function finish(word: number, address: number, encoding: string, cond: number, d: Described): ArmInstruction {
  const mnemonic = d.classes.has('undefined') ? '<unknown>' : d.mnemonic;
  const operands = d.classes.has('undefined') ? '' : d.operands;
  return {
    word: word >>> 0,
    address: address >>> 0,
    encoding,
    cond,
    mnemonic,
    operands,
    text: operands ? `${mnemonic}\t${operands}` : mnemonic,
    classes: d.classes,
    ...(d.registerList !== undefined ? { registerList: d.registerList } : {}),
    ...(d.target !== undefined ? { target: d.target } : {}),
    ...(d.literalAddress !== undefined ? { literalAddress: d.literalAddress } : {}),
    ...(d.immediate !== undefined ? { immediate: d.immediate } : {}),
  };
}
