// A32 instruction description and disassembly (UAL, with llvm-objdump's
// mnemonics and operand spelling). Decoding uses the generated table from
// encodings/a32.decode, the same one the WebAssembly core runs, so what
// `describeA32` reports is what the core executes. Pure functions, no I/O.
import { A32_ENCODINGS, decodeA32Id } from './generated/a32-table.js';

/** Condition-field suffixes, index = cond (14 = always, printed empty). */
export const CONDITION_NAMES = ['eq', 'ne', 'hs', 'lo', 'mi', 'pl', 'vs', 'vc', 'hi', 'ls', 'ge', 'lt', 'gt', 'le', '', ''] as const;

/** Register names as llvm-objdump prints them. */
export const REGISTER_NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'sp', 'lr', 'pc'] as const;

/** Classes the DTrace providers look for when walking functions. */
export type A32Class =
  | 'push' // stmdb sp!, {...} or str rX, [sp, #-4]!
  | 'pop' // ldm sp!, {...} or ldr rX, [sp], #4
  | 'ldm-pc' // any ldm whose list includes pc
  | 'bx-lr'
  | 'mov-pc-lr'
  | 'branch' // b/bl/blx with an immediate target
  | 'call' // bl/blx (immediate or register)
  | 'indirect-branch' // bx/blx register, or a write to pc other than the above
  | 'pc-relative-load' // ldr rX, [pc, #imm] (literal pool)
  | 'mov-ip-sp'
  | 'sub-sp' // sub sp, sp, #imm
  | 'movw'
  | 'movt'
  | 'cmp-imm'
  | 'mov-imm'
  | 'svc'
  | 'udf'
  | 'bkpt'
  | 'exclusive' // ldrex*/strex*/clrex
  | 'writes-pc'
  | 'vfp' // VFP / Advanced SIMD: decoded as a class only
  | 'undefined';

/** Everything known about one A32 word at an address. */
export interface A32Instruction {
  readonly word: number;
  readonly address: number;
  /** Encoding name from a32.decode ('UNDEFINED' when none matches). */
  readonly encoding: string;
  /** Condition field 0-14, or 15 for unconditional encodings. */
  readonly cond: number;
  /** llvm-objdump mnemonic including condition suffix, or '<unknown>'. */
  readonly mnemonic: string;
  /** Operands as llvm-objdump prints them (branch targets as 0x... hex). */
  readonly operands: string;
  /** mnemonic + tab + operands. */
  readonly text: string;
  readonly classes: ReadonlySet<A32Class>;
  /** Register list (bit n = rn) for ldm/stm/push/pop. */
  readonly registerList?: number;
  /** Branch target for b/bl/blx immediate. */
  readonly target?: number;
  /** Literal address for pc-relative loads. */
  readonly literalAddress?: number;
  /** Immediate value for movw/movt/mov-imm/cmp-imm/sub-sp/svc/udf/bkpt. */
  readonly immediate?: number;
}

const r = (n: number): string => REGISTER_NAMES[n & 15]!;
const bitsOf = (w: number, lsb: number, width: number): number => (w >>> lsb) & ((1 << width) - 1);
const hex = (v: number): string => '0x' + (v >>> 0).toString(16);
const rotr = (v: number, n: number): number => (n === 0 ? v >>> 0 : ((v >>> n) | (v << (32 - n))) >>> 0);
const SHIFT_NAMES = ['lsl', 'lsr', 'asr', 'ror'] as const;

/** llvm's choice of 12-bit encoding for a value (smallest rotation), or -1. */
function canonicalModImm(value: number): number {
  const v = value >>> 0;
  let rot: number;
  if ((v & ~255) === 0) rot = 0;
  else {
    const tz = 31 - Math.clz32(v & -v);
    let amount = tz & ~1;
    rot = (32 - amount) & 31;
    if ((rotr(v, amount) & ~255) !== 0 && (v & 63) !== 0) {
      const masked = v & ~63;
      const tz2 = masked === 0 ? 32 : 31 - Math.clz32(masked & -masked);
      const amount2 = tz2 & ~1;
      if ((rotr(v, amount2) & ~255) === 0) rot = (32 - amount2) & 31;
      else amount = amount;
    }
  }
  if ((rotr(0xffffff00, rot) & v) !== 0) return -1;
  return ((rotr(v, (32 - rot) & 31) | ((rot >> 1) << 8)) >>> 0);
}

/** A modified immediate as llvm prints it: '#value' (signed) or '#bits, #rot'. */
function modImm(imm12: number, unsigned = false): string {
  const bitsPart = imm12 & 0xff;
  const rot = (imm12 >> 8) * 2;
  const value = rotr(bitsPart, rot);
  if (canonicalModImm(value) === imm12) return '#' + (unsigned ? value >>> 0 : value | 0);
  return `#${bitsPart}, #${rot}`;
}

/** Value of a 12-bit modified immediate. */
export function expandModifiedImmediate(imm12: number): number {
  return rotr(imm12 & 0xff, ((imm12 >> 8) & 15) * 2);
}

function shiftImm(type: number, imm5: number): string {
  if (type === 0 && imm5 === 0) return '';
  if (type === 3 && imm5 === 0) return ', rrx';
  const amount = imm5 === 0 ? 32 : imm5;
  return `, ${SHIFT_NAMES[type]} #${amount}`;
}

function regList(list: number): string {
  const names: string[] = [];
  for (let i = 0; i < 16; i++) if (list & (1 << i)) names.push(r(i));
  return `{${names.join(', ')}}`;
}

const bitCount = (x: number): number => {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
};

const BANKED_NAMES: Record<number, string> = {
  0x00: 'r8_usr', 0x01: 'r9_usr', 0x02: 'r10_usr', 0x03: 'r11_usr', 0x04: 'r12_usr', 0x05: 'sp_usr', 0x06: 'lr_usr',
  0x08: 'r8_fiq', 0x09: 'r9_fiq', 0x0a: 'r10_fiq', 0x0b: 'r11_fiq', 0x0c: 'r12_fiq', 0x0d: 'sp_fiq', 0x0e: 'lr_fiq',
  0x10: 'lr_irq', 0x11: 'sp_irq', 0x12: 'lr_svc', 0x13: 'sp_svc', 0x14: 'lr_abt', 0x15: 'sp_abt', 0x16: 'lr_und', 0x17: 'sp_und',
  0x1c: 'lr_mon', 0x1d: 'sp_mon', 0x1e: 'elr_hyp', 0x1f: 'sp_hyp',
  0x2e: 'spsr_fiq', 0x30: 'spsr_irq', 0x32: 'spsr_svc', 0x34: 'spsr_abt', 0x36: 'spsr_und', 0x3c: 'spsr_mon', 0x3e: 'spsr_hyp',
};

const BARRIER_OPTIONS: Record<number, string> = {
  15: 'sy', 14: 'st', 13: 'ld', 11: 'ish', 10: 'ishst', 9: 'ishld', 7: 'nsh', 6: 'nshst', 5: 'nshld', 3: 'osh', 2: 'oshst', 1: 'oshld',
};

const DP_NAMES: Record<string, string> = {
  AND: 'and', EOR: 'eor', SUB: 'sub', RSB: 'rsb', ADD: 'add', ADC: 'adc', SBC: 'sbc', RSC: 'rsc',
  TST: 'tst', TEQ: 'teq', CMP: 'cmp', CMN: 'cmn', ORR: 'orr', MOV: 'mov', BIC: 'bic', MVN: 'mvn',
};

const MODE_SUFFIX = ['da', 'ia', 'db', 'ib'] as const;

/** Decodes and describes one A32 word at `address`. Never throws for any 32-bit value. */
export function describeA32(word: number, address = 0): A32Instruction {
  const w = word >>> 0;
  const id = decodeA32Id(w);
  const enc = A32_ENCODINGS[id]!;
  const name = enc.name;
  const cond = w >>> 28;
  const c = CONDITION_NAMES[cond]!;
  const classes = new Set<A32Class>();
  const f = (field: string): number => {
    for (const [n, lsb, width] of enc.fields) if (n === field) return bitsOf(w, lsb, width);
    return 0;
  };
  const result: {
    mnemonic: string;
    operands: string;
    registerList?: number;
    target?: number;
    literalAddress?: number;
    immediate?: number;
  } = { mnemonic: '<unknown>', operands: '' };
  const set = (mnemonic: string, operands: string): void => {
    result.mnemonic = mnemonic;
    result.operands = operands;
  };
  const base = name.replace(/_(imm|reg|rsr)$/, '');
  const form = name.slice(base.length + 1);
  const rd = bitsOf(w, 12, 4);
  const rn = bitsOf(w, 16, 4);
  const rm = bitsOf(w, 0, 4);
  const rs = bitsOf(w, 8, 4);
  const sBit = bitsOf(w, 20, 1) === 1;

  if (id === 0 || name.startsWith('UNDEF')) {
    classes.add('undefined');
  } else if (name.startsWith('VFP_') || name.startsWith('NEON_')) {
    classes.add('vfp');
    classes.add('undefined');
  } else if (base in DP_NAMES) {
    const mn = DP_NAMES[base]!;
    const compare = base === 'TST' || base === 'TEQ' || base === 'CMP' || base === 'CMN';
    const move = base === 'MOV' || base === 'MVN';
    const s = !compare && sBit ? 's' : '';
    let second: string;
    if (form === 'imm') {
      const imm12 = bitsOf(w, 0, 12);
      second = modImm(imm12, (base === 'MOV' && rd === 15));
      const value = expandModifiedImmediate(imm12);
      if (base === 'CMP') {
        classes.add('cmp-imm');
        result.immediate = value;
      }
      if (base === 'MOV' || base === 'MVN') {
        classes.add('mov-imm');
        result.immediate = base === 'MOV' ? value : ~value >>> 0;
      }
      if (base === 'SUB' && rd === 13 && rn === 13) {
        classes.add('sub-sp');
        result.immediate = value;
      }
      if (base === 'ADD' && rn === 15 && !sBit) {
        // add rX, pc, #imm computes a pc-relative address (adr)
      }
    } else if (form === 'reg') {
      second = r(rm) + shiftImm(bitsOf(w, 5, 2), bitsOf(w, 7, 5));
    } else {
      second = `${r(rm)}, ${SHIFT_NAMES[bitsOf(w, 5, 2)]} ${r(rs)}`;
    }
    if (base === 'MOV' && form === 'reg' && !(bitsOf(w, 7, 5) === 0 && bitsOf(w, 5, 2) === 0)) {
      const type = bitsOf(w, 5, 2);
      const imm5 = bitsOf(w, 7, 5);
      if (type === 3 && imm5 === 0) set(`rrx${s}${c}`, `${r(rd)}, ${r(rm)}`);
      else set(`${SHIFT_NAMES[type]}${s}${c}`, `${r(rd)}, ${r(rm)}, #${imm5 === 0 ? 32 : imm5}`);
    } else if (base === 'MOV' && form === 'rsr') {
      set(`${SHIFT_NAMES[bitsOf(w, 5, 2)]}${s}${c}`, `${r(rd)}, ${r(rm)}, ${r(rs)}`);
    } else if (compare) set(`${mn}${c}`, `${r(rn)}, ${second}`);
    else if (move) set(`${mn}${s}${c}`, `${r(rd)}, ${second}`);
    else set(`${mn}${s}${c}`, `${r(rd)}, ${r(rn)}, ${second}`);
    if (base === 'MOV' && form === 'reg' && bitsOf(w, 4, 8) === 0) {
      if (rd === 15 && rm === 14) classes.add('mov-pc-lr');
      if (rd === 12 && rm === 13) classes.add('mov-ip-sp');
    }
    if (rd === 15 && !compare) classes.add('writes-pc');
  } else {
    describeOther();
  }

  function describeOther(): void {
    switch (name) {
      case 'MOVW':
      case 'MOVT': {
        const imm = (f('imm4') << 12) | f('imm12');
        set(`${name.toLowerCase()}${c}`, `${r(rd)}, #${imm}`);
        classes.add(name === 'MOVW' ? 'movw' : 'movt');
        result.immediate = imm;
        return;
      }
      case 'NOP': case 'YIELD': case 'WFE': case 'WFI': case 'SEV':
        set(name.toLowerCase() + c, '');
        return;
      case 'DBG':
        set('dbg' + c, `#${f('option')}`);
        return;
      case 'HINT':
        set('hint' + c, `#${f('op')}`);
        return;
      case 'MSR_imm':
        set('msr' + c, `${psrName(f('r'), f('mask'))}, ${modImm(bitsOf(w, 0, 12), true)}`);
        return;
      case 'MSR_reg':
        set('msr' + c, `${psrName(f('r'), f('mask'))}, ${r(rm)}`);
        return;
      case 'MRS':
        set('mrs' + c, `${r(rd)}, ${f('r') ? 'spsr' : 'apsr'}`);
        return;
      case 'MRS_banked':
      case 'MSR_banked': {
        const sysm = (f('r') << 5) | (f('m') << 4) | f('m1');
        const reg = BANKED_NAMES[sysm];
        if (reg === undefined) return;
        if (name === 'MRS_banked') set('mrs' + c, `${r(rd)}, ${reg}`);
        else set('msr' + c, `${reg}, ${r(rm)}`);
        return;
      }
      case 'BX':
        set('bx' + c, r(rm));
        classes.add(rm === 14 ? 'bx-lr' : 'indirect-branch');
        return;
      case 'BXJ':
        set('bxj' + c, r(rm));
        classes.add('indirect-branch');
        return;
      case 'BLX_reg':
        set('blx' + c, r(rm));
        classes.add('call').add('indirect-branch');
        return;
      case 'CLZ':
        set('clz' + c, `${r(rd)}, ${r(rm)}`);
        return;
      case 'QADD': case 'QSUB': case 'QDADD': case 'QDSUB':
        set(name.toLowerCase() + c, `${r(rd)}, ${r(rm)}, ${r(rn)}`);
        return;
      case 'ERET':
        set('eret' + c, '');
        classes.add('writes-pc');
        return;
      case 'BKPT':
      case 'HVC': {
        const imm = (f('imm12') << 4) | f('imm4');
        set(name.toLowerCase(), `#${imm}`);
        if (name === 'BKPT') {
          classes.add('bkpt');
          result.immediate = imm;
        }
        return;
      }
      case 'SMC':
        set('smc' + c, `#${f('imm4')}`);
        return;
      case 'SMLAxy':
        set(`smla${f('n') ? 't' : 'b'}${f('m') ? 't' : 'b'}${c}`, `${r(bitsOf(w, 16, 4))}, ${r(rm)}, ${r(rs)}, ${r(rd)}`);
        return;
      case 'SMLAWy':
        set(`smlaw${f('m') ? 't' : 'b'}${c}`, `${r(bitsOf(w, 16, 4))}, ${r(rm)}, ${r(rs)}, ${r(rd)}`);
        return;
      case 'SMULWy':
        set(`smulw${f('m') ? 't' : 'b'}${c}`, `${r(bitsOf(w, 16, 4))}, ${r(rm)}, ${r(rs)}`);
        return;
      case 'SMLALxy':
        set(`smlal${f('n') ? 't' : 'b'}${f('m') ? 't' : 'b'}${c}`, `${r(rd)}, ${r(rn)}, ${r(rm)}, ${r(rs)}`);
        return;
      case 'SMULxy':
        set(`smul${f('n') ? 't' : 'b'}${f('m') ? 't' : 'b'}${c}`, `${r(rn)}, ${r(rm)}, ${r(rs)}`);
        return;
      case 'MUL':
        set(`mul${sBit ? 's' : ''}${c}`, `${r(rn)}, ${r(rm)}, ${r(rs)}`);
        return;
      case 'MLA':
      case 'MLS':
        set(`${name.toLowerCase()}${name === 'MLA' && sBit ? 's' : ''}${c}`, `${r(rn)}, ${r(rm)}, ${r(rs)}, ${r(rd)}`);
        return;
      case 'UMAAL': case 'UMULL': case 'UMLAL': case 'SMULL': case 'SMLAL':
        set(`${name.toLowerCase()}${name !== 'UMAAL' && sBit ? 's' : ''}${c}`, `${r(rd)}, ${r(rn)}, ${r(rm)}, ${r(rs)}`);
        return;
      case 'SWP': case 'SWPB':
        set(name.toLowerCase() + c, `${r(rd)}, ${r(rm)}, [${r(rn)}]`);
        return;
      case 'LDREX': case 'LDREXB': case 'LDREXH':
        set(name.toLowerCase() + c, `${r(rd)}, [${r(rn)}]`);
        classes.add('exclusive');
        return;
      case 'LDREXD':
        set('ldrexd' + c, `${r(rd)}, ${r(rd + 1)}, [${r(rn)}]`);
        classes.add('exclusive');
        return;
      case 'STREX': case 'STREXB': case 'STREXH':
        set(name.toLowerCase() + c, `${r(rd)}, ${r(rm)}, [${r(rn)}]`);
        classes.add('exclusive');
        return;
      case 'STREXD':
        set('strexd' + c, `${r(rd)}, ${r(rm)}, ${r(rm + 1)}, [${r(rn)}]`);
        classes.add('exclusive');
        return;
      case 'CLREX':
        set('clrex', '');
        classes.add('exclusive');
        return;
      case 'DSB': case 'DMB': {
        const opt = f('option');
        set(name.toLowerCase(), BARRIER_OPTIONS[opt] ?? `#0x${opt.toString(16)}`);
        return;
      }
      case 'ISB': {
        const opt = f('option');
        set('isb', opt === 15 ? 'sy' : `#0x${opt.toString(16)}`);
        return;
      }
      case 'B': case 'BL': {
        const offset = (f('imm24') << 8) >> 6;
        const target = (address + 8 + offset) >>> 0;
        set(name.toLowerCase() + c, hex(target));
        classes.add('branch');
        if (name === 'BL') classes.add('call');
        result.target = target;
        return;
      }
      case 'BLX_imm': {
        const offset = ((f('imm24') << 8) >> 6) | (f('h') << 1);
        const target = (address + 8 + offset) >>> 0;
        set('blx', hex(target));
        classes.add('branch').add('call');
        result.target = target;
        return;
      }
      case 'SVC':
        set('svc' + c, `#${f('imm24')}`);
        classes.add('svc');
        result.immediate = f('imm24');
        return;
      case 'UDF': {
        const imm = (f('imm12') << 4) | f('imm4');
        set('udf', `#${imm}`);
        classes.add('udf');
        result.immediate = imm;
        return;
      }
      case 'MCR': case 'MRC': case 'MCR2': case 'MRC2':
        set(name.toLowerCase() + (name.endsWith('2') ? '' : c), `p${f('coproc')}, #${f('opc1')}, ${r(rd)}, c${f('crn')}, c${f('crm')}, #${f('opc2')}`);
        return;
      case 'CDP': case 'CDP2':
        set(name.toLowerCase() + (name.endsWith('2') ? '' : c), `p${f('coproc')}, #${f('opc1')}, c${f('crd')}, c${f('crn')}, c${f('crm')}, #${f('opc2')}`);
        return;
      case 'MCRR': case 'MRRC': case 'MCRR2': case 'MRRC2':
        set(name.toLowerCase() + (name.endsWith('2') ? '' : c), `p${f('coproc')}, #${f('opc1')}, ${r(rd)}, ${r(rn)}, c${f('crm')}`);
        return;
      case 'LDC': case 'STC': case 'LDC2': case 'STC2': {
        const two = name.endsWith('2');
        const mn = name.slice(0, 3).toLowerCase() + (two ? '2' : '') + (f('d') ? 'l' : '') + (two ? '' : c);
        const imm8 = f('imm8');
        const sign = f('u') ? '' : '-';
        let addr: string;
        if (f('p')) addr = `[${r(rn)}, #${sign}${imm8 * 4}]${f('w') ? '!' : ''}`;
        else if (f('w')) addr = `[${r(rn)}], #${sign}${imm8 * 4}`;
        else addr = `[${r(rn)}], {${imm8}}`;
        set(mn, `p${f('coproc')}, c${f('crd')}, ${addr}`);
        return;
      }
      case 'CPS': {
        const imod = f('imod');
        const flags = (f('a') ? 'a' : '') + (f('i') ? 'i' : '') + (f('f') ? 'f' : '');
        if (imod >= 2) {
          const mn = imod === 2 ? 'cpsie' : 'cpsid';
          set(mn, f('m') ? `${flags || 'none'}, #${f('mode')}` : flags || 'none');
        } else if (imod === 0 && f('m')) set('cps', `#${f('mode')}`);
        return;
      }
      case 'SETEND':
        set('setend', f('e') ? 'be' : 'le');
        return;
      case 'PLI_imm': case 'PLD_imm': {
        const mn = name === 'PLI_imm' ? 'pli' : f('r') ? 'pld' : 'pldw';
        const imm = f('imm12');
        set(mn, `[${r(rn)}, #${f('u') ? '' : '-'}${imm}]`);
        return;
      }
      case 'PLI_reg': case 'PLD_reg': {
        const mn = name === 'PLI_reg' ? 'pli' : f('r') ? 'pld' : 'pldw';
        set(mn, `[${r(rn)}, ${f('u') ? '' : '-'}${r(rm)}${shiftImm(f('type'), f('imm5'))}]`);
        return;
      }
      case 'SRS': {
        const mode = MODE_SUFFIX[(f('p') << 1) | f('u')]!;
        set('srs' + mode, `sp${f('w') ? '!' : ''}, #${f('mode')}`);
        return;
      }
      case 'RFE': {
        const mode = MODE_SUFFIX[(f('p') << 1) | f('u')]!;
        set('rfe' + mode, `${r(rn)}${f('w') ? '!' : ''}`);
        classes.add('writes-pc');
        return;
      }
      default:
        describeMedia() || describeLoadStore();
    }
  }

  function psrName(spsr: number, mask: number): string {
    const p = spsr ? 'SPSR' : 'CPSR';
    if (!spsr && (mask === 8 || mask === 4 || mask === 12)) {
      return 'APSR_' + (mask & 8 ? 'nzcvq' : '') + (mask & 4 ? 'g' : '');
    }
    return `${p}_${mask & 8 ? 'f' : ''}${mask & 4 ? 's' : ''}${mask & 2 ? 'x' : ''}${mask & 1 ? 'c' : ''}`;
  }

  function describeMedia(): boolean {
    const lower = name.toLowerCase();
    if (/^(S|Q|SH|U|UQ|UH)(ADD16|ASX|SAX|SUB16|ADD8|SUB8)$/.test(name)) {
      set(lower + c, `${r(rd)}, ${r(rn)}, ${r(rm)}`);
      return true;
    }
    switch (name) {
      case 'PKHBT': case 'PKHTB': {
        const imm5 = f('imm5');
        const sh = name === 'PKHBT' ? (imm5 ? `, lsl #${imm5}` : '') : `, asr #${imm5 === 0 ? 32 : imm5}`;
        set(lower + c, `${r(rd)}, ${r(rn)}, ${r(rm)}${sh}`);
        return true;
      }
      case 'SSAT': case 'USAT': {
        const imm5 = f('imm5');
        const sh = f('sh') ? `, asr #${imm5 === 0 ? 32 : imm5}` : imm5 ? `, lsl #${imm5}` : '';
        set(lower + c, `${r(rd)}, #${f('satimm') + (name === 'SSAT' ? 1 : 0)}, ${r(rm)}${sh}`);
        return true;
      }
      case 'SSAT16': case 'USAT16':
        set(lower + c, `${r(rd)}, #${f('satimm') + (name === 'SSAT16' ? 1 : 0)}, ${r(rm)}`);
        return true;
      case 'SXTB': case 'SXTH': case 'UXTB': case 'UXTH': case 'SXTB16': case 'UXTB16': {
        const rot = f('rot');
        set(lower + c, `${r(rd)}, ${r(rm)}${rot ? `, ror #${rot * 8}` : ''}`);
        return true;
      }
      case 'SXTAB': case 'SXTAH': case 'UXTAB': case 'UXTAH': case 'SXTAB16': case 'UXTAB16': {
        const rot = f('rot');
        set(lower + c, `${r(rd)}, ${r(rn)}, ${r(rm)}${rot ? `, ror #${rot * 8}` : ''}`);
        return true;
      }
      case 'SEL':
        set('sel' + c, `${r(rd)}, ${r(rn)}, ${r(rm)}`);
        return true;
      case 'REV': case 'REV16': case 'RBIT': case 'REVSH':
        set(lower + c, `${r(rd)}, ${r(rm)}`);
        return true;
      case 'SMLAD': case 'SMLSD': case 'SMUAD': case 'SMUSD': case 'SMLALD': case 'SMLSLD': {
        const x = f('m') ? 'x' : '';
        const d = rn; // bits 19:16
        if (name === 'SMLALD' || name === 'SMLSLD') set(lower + x + c, `${r(rd)}, ${r(d)}, ${r(rm)}, ${r(rs)}`);
        else if (name === 'SMUAD' || name === 'SMUSD') set(lower + x + c, `${r(d)}, ${r(rm)}, ${r(rs)}`);
        else set(lower + x + c, `${r(d)}, ${r(rm)}, ${r(rs)}, ${r(rd)}`);
        return true;
      }
      case 'SMMLA': case 'SMMLS': case 'SMMUL': {
        const x = f('r') ? 'r' : '';
        if (name === 'SMMUL') set(lower + x + c, `${r(rn)}, ${r(rm)}, ${r(rs)}`);
        else set(lower + x + c, `${r(rn)}, ${r(rm)}, ${r(rs)}, ${r(rd)}`);
        return true;
      }
      case 'SDIV': case 'UDIV':
        set(lower + c, `${r(rn)}, ${r(rm)}, ${r(rs)}`);
        return true;
      case 'USAD8':
        set('usad8' + c, `${r(rn)}, ${r(rm)}, ${r(rs)}`);
        return true;
      case 'USADA8':
        set('usada8' + c, `${r(rn)}, ${r(rm)}, ${r(rs)}, ${r(rd)}`);
        return true;
      case 'SBFX': case 'UBFX':
        set(lower + c, `${r(rd)}, ${r(rm)}, #${f('lsb')}, #${f('widthm1') + 1}`);
        return true;
      case 'BFC': case 'BFI': {
        const lsb = f('lsb');
        const width = f('msb') - lsb + 1;
        if (width < 1) return true; // UNPREDICTABLE: llvm prints <unknown>
        set(lower + c, name === 'BFC' ? `${r(rd)}, #${lsb}, #${width}` : `${r(rd)}, ${r(rm)}, #${lsb}, #${width}`);
        return true;
      }
    }
    return false;
  }

  function describeLoadStore(): void {
    // Block transfers.
    const block = /^(LDM|STM)(DA|DB|IB)?$/.exec(name);
    if (block || name === 'STM_user' || name === 'LDM_user' || name === 'LDM_eret') {
      const load = name.startsWith('LDM');
      const list = bitsOf(w, 0, 16);
      const mode = (bitsOf(w, 24, 1) << 1) | bitsOf(w, 23, 1);
      const wb = bitsOf(w, 21, 1) === 1;
      const user = !block;
      const suffix = mode === 1 ? '' : MODE_SUFFIX[mode]!;
      result.registerList = list;
      if (!user && rn === 13 && wb && bitCount(list) > 1 && ((load && mode === 1) || (!load && mode === 2))) {
        set((load ? 'pop' : 'push') + c, regList(list));
        classes.add(load ? 'pop' : 'push');
      } else {
        set(`${load ? 'ldm' : 'stm'}${suffix}${c}`, `${r(rn)}${wb ? '!' : ''}, ${regList(list)}${user ? ' ^' : ''}`);
        if (!user && rn === 13 && wb && load && mode === 1) classes.add('pop');
        if (!user && rn === 13 && wb && !load && mode === 2) classes.add('push');
      }
      if (load && list & 0x8000) classes.add('ldm-pc').add('writes-pc');
      return;
    }
    // Word/byte/halfword/doubleword single transfers.
    const single = /^(STR|LDR)(B|H|SB|SH|D)?(T)?_(imm|reg)$/.exec(name);
    if (!single) return;
    const [, op, size = '', translated, kind] = single;
    const load = op === 'LDR';
    const extra = size === 'H' || size === 'SB' || size === 'SH' || size === 'D';
    const p = translated ? 0 : bitsOf(w, 24, 1);
    const u = bitsOf(w, 23, 1);
    const wb = translated ? 0 : bitsOf(w, 21, 1);
    const sign = u ? '' : '-';
    let offset: string;
    let immValue = 0;
    if (kind === 'imm') {
      immValue = extra ? (bitsOf(w, 8, 4) << 4) | bitsOf(w, 0, 4) : bitsOf(w, 0, 12);
      offset = `#${sign}${immValue}`;
    } else {
      offset = `${sign}${r(rm)}${extra ? '' : shiftImm(bitsOf(w, 5, 2), bitsOf(w, 7, 5))}`;
    }
    let addr: string;
    if (p) {
      const omit = kind === 'imm' && immValue === 0 && u === 1;
      addr = omit ? `[${r(rn)}]${wb ? '!' : ''}` : `[${r(rn)}, ${offset}]${wb ? '!' : ''}`;
    } else addr = `[${r(rn)}], ${offset}`;
    const mn = `${op.toLowerCase()}${size.toLowerCase()}${translated ? 't' : ''}${c}`;
    const rt = bitsOf(w, 12, 4);
    if (size === 'D') {
      set(mn, `${r(rt)}, ${r(rt + 1)}, ${addr}`);
      return;
    }
    set(mn, `${r(rt)}, ${addr}`);
    // A single-register push or pop (PUSH/POP encoding A2) keeps its str/ldr
    // spelling, as llvm-objdump prints it, but is classed as push/pop.
    if (!size && !translated && kind === 'imm' && rn === 13 && immValue === 4) {
      if (!load && p && wb && !u) {
        classes.add('push');
        result.registerList = 1 << rt;
        return;
      }
      if (load && !p && !wb && u) {
        classes.add('pop');
        result.registerList = 1 << rt;
        if (rt === 15) classes.add('writes-pc');
        return;
      }
    }
    if (load && rt === 15) classes.add('writes-pc');
    if (load && rn === 15 && kind === 'imm' && p && !wb) {
      classes.add('pc-relative-load');
      result.literalAddress = (address + 8 + (u ? immValue : -immValue)) >>> 0;
    }
  }

  if (classes.has('undefined')) result.mnemonic = '<unknown>';
  const text = result.operands ? `${result.mnemonic}\t${result.operands}` : result.mnemonic;
  return {
    word: w,
    address: address >>> 0,
    encoding: name,
    cond,
    mnemonic: result.mnemonic,
    operands: result.operands,
    text,
    classes,
    ...(result.registerList !== undefined ? { registerList: result.registerList } : {}),
    ...(result.target !== undefined ? { target: result.target } : {}),
    ...(result.literalAddress !== undefined ? { literalAddress: result.literalAddress } : {}),
    ...(result.immediate !== undefined ? { immediate: result.immediate } : {}),
  };
}
