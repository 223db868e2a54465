// T32 instruction description and disassembly (UAL, with llvm-objdump
// --triple=thumbv7's mnemonics and operand spelling). Decoding uses the
// generated table from encodings/t32.decode — the one the WebAssembly core
// runs — and reads every operand through the table's named fields, so what
// describeT32 reports is what the core executes. Inside an IT block 16-bit
// data processing does not set flags and every instruction carries the
// block's condition: callers walking a stream pass the ITSTATE
// (itStateAfter follows it). Pure functions, no I/O.
import { T32_ENCODINGS, decodeT16Id, decodeT32Id, isT32Wide } from './generated/t32-table.js';
import {
  CONDITION_NAMES, BANKED_NAMES, BARRIER_OPTIONS, SHIFT_NAMES, bitCount, finish, hex, psrName, r, regList, rotr, shiftImm,
  type ArmInstruction, type Described,
} from './arm-syntax.js';
import { describeVfp } from './describe-vfp.js';

export { isT32Wide };

/** ThumbExpandImm (A6.3.2): the value of a 12-bit modified immediate i:imm3:imm8. */
export function thumbExpandImmediate(imm12: number): number {
  const imm8 = imm12 & 0xff;
  if (imm12 >>> 10 === 0) {
    switch ((imm12 >>> 8) & 3) {
      case 0: return imm8;
      case 1: return ((imm8 << 16) | imm8) >>> 0;
      case 2: return ((imm8 << 24) | (imm8 << 8)) >>> 0;
      default: return (imm8 * 0x01010101) >>> 0;
    }
  }
  return rotr(0x80 | (imm12 & 0x7f), imm12 >>> 7);
}

/** ITSTATE after executing an instruction with ITSTATE `it` (ITAdvance; an IT instruction sets its own). */
export function itStateAfter(insn: ArmInstruction, it: number): number {
  if (insn.classes.has('it')) return insn.word & 0xff;
  if (it === 0 || (it & 7) === 0) return 0;
  return (it & 0xe0) | ((it << 1) & 0x1f);
}

/** Mnemonic groups of the 16-bit data-processing (register) encodings. */
const LOW_DP: Record<string, string> = {
  AND_reg_T1: 'and', EOR_reg_T1: 'eor', LSL_reg_T1: 'lsl', LSR_reg_T1: 'lsr', ASR_reg_T1: 'asr', ADC_reg_T1: 'adc', SBC_reg_T1: 'sbc',
  ROR_reg_T1: 'ror', ORR_reg_T1: 'orr', BIC_reg_T1: 'bic', MVN_reg_T1: 'mvn',
};

/** 32-bit data processing: base mnemonic and whether llvm writes .w for the register and immediate forms. */
const WIDE_DP: Record<string, { mn: string; regW: boolean; immW: boolean; compare?: boolean; move?: boolean }> = {
  AND: { mn: 'and', regW: true, immW: false }, TST: { mn: 'tst', regW: true, immW: true, compare: true },
  BIC: { mn: 'bic', regW: true, immW: false }, ORR: { mn: 'orr', regW: true, immW: false },
  MOV: { mn: 'mov', regW: true, immW: true, move: true }, ORN: { mn: 'orn', regW: false, immW: false },
  MVN: { mn: 'mvn', regW: true, immW: false, move: true }, EOR: { mn: 'eor', regW: true, immW: false },
  TEQ: { mn: 'teq', regW: true, immW: true, compare: true }, ADD: { mn: 'add', regW: true, immW: true },
  CMN: { mn: 'cmn', regW: true, immW: true, compare: true }, ADC: { mn: 'adc', regW: true, immW: false },
  SBC: { mn: 'sbc', regW: true, immW: false }, SUB: { mn: 'sub', regW: true, immW: true },
  CMP: { mn: 'cmp', regW: true, immW: true, compare: true }, RSB: { mn: 'rsb', regW: false, immW: true },
};

const EXTENDS: Record<string, string> = {
  SXTAH: 'sxtah', SXTH: 'sxth', UXTAH: 'uxtah', UXTH: 'uxth', SXTAB16: 'sxtab16', SXTB16: 'sxtb16', UXTAB16: 'uxtab16', UXTB16: 'uxtb16',
  SXTAB: 'sxtab', SXTB: 'sxtb', UXTAB: 'uxtab', UXTB: 'uxtb',
};

/**
 * Decodes and describes one T32 instruction — `value` is the halfword of a
 * 16-bit one or first << 16 | second of a 32-bit one (see isT32Wide) — at
 * `address`, with ITSTATE `it` (0 outside an IT block). Never throws.
 */
export function describeT32(value: number, address = 0, it = 0): ArmInstruction {
  const v = value >>> 0;
  const wide = v > 0xffff;
  const id = wide ? decodeT32Id(v) : isT32Wide(v) ? 0 : decodeT16Id(v);
  const enc = T32_ENCODINGS[id]!;
  const name = enc.name;
  const inIt = (it & 0xf) !== 0;
  const itCond = inIt ? it >>> 4 : 14;
  let cond = itCond;
  const c = CONDITION_NAMES[itCond]!;
  const d: Described = { mnemonic: '<unknown>', operands: '', classes: new Set() };
  const classes = d.classes;
  const f = (field: string): number => {
    for (const [n, lsb, width] of enc.fields) if (n === field) return (v >>> lsb) & ((1 << width) - 1);
    return 0;
  };
  const set = (mnemonic: string, operands: string): void => {
    d.mnemonic = mnemonic;
    d.operands = operands;
  };
  /** mnemonic, flag suffix, condition and .w in llvm's order. */
  const mn = (base: string, s: boolean | number, w: boolean): string => `${base}${s ? 's' : ''}${c}${w ? '.w' : ''}`;
  /** 16-bit data processing sets flags outside an IT block only. */
  const lowS = !inIt;
  const pcValue = (address + 4) >>> 0;
  const alignedPc = pcValue & ~3;
  const i12 = (): number => (f('i') << 11) | (f('imm3') << 8) | f('imm8');
  const sh32 = (): string => shiftImm(f('type'), (f('imm3') << 2) | f('imm2'));
  const addr = (base: number, offset: string): string => `[${r(base)}${offset ? `, ${offset}` : ''}]`;
  const signedImm = (add: number, imm: number): string => `#${add ? '' : '-'}${imm}`;

  if (id === 0 || name.startsWith('UNDEF')) classes.add('undefined');
  else if (name.startsWith('VFP_') || name.startsWith('NEON_')) classes.add('vfp').add('undefined');
  else if (name.startsWith('V')) {
    if (!describeVfp(name.replace(/_T1$/, ''), v, c, pcValue, d)) classes.add('vfp').add('undefined');
  } else describe();

  function describe(): void {
    const base = name.replace(/_T\d$/, '');
    // ---- 16-bit ----
    if (!wide) {
      if (name in LOW_DP) {
        set(mn(LOW_DP[name]!, lowS, false), `${r(f('rdn') || f('rd'))}, ${r(f('rm'))}`);
        if (name === 'MVN_reg_T1') set(mn('mvn', lowS, false), `${r(f('rd'))}, ${r(f('rm'))}`);
        return;
      }
      switch (name) {
        case 'MOV_reg_T2':
          set(inIt ? mn('lsl', false, false) : 'movs', inIt ? `${r(f('rd'))}, ${r(f('rm'))}, #0` : `${r(f('rd'))}, ${r(f('rm'))}`);
          return;
        case 'LSL_imm_T1': case 'LSR_imm_T1': case 'ASR_imm_T1': {
          const imm5 = f('imm5');
          set(mn(base.slice(0, 3).toLowerCase(), lowS, false), `${r(f('rd'))}, ${r(f('rm'))}, #${imm5 === 0 ? 32 : imm5}`);
          return;
        }
        case 'ADD_reg_T1': case 'SUB_reg_T1':
          set(mn(base.slice(0, 3).toLowerCase(), lowS, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
          return;
        case 'ADD_imm_T1': case 'SUB_imm_T1':
          set(mn(base.slice(0, 3).toLowerCase(), lowS, false), `${r(f('rd'))}, ${r(f('rn'))}, #${f('imm3')}`);
          return;
        case 'MOV_imm_T1':
          set(mn('mov', lowS, false), `${r(f('rd'))}, #${f('imm8')}`);
          classes.add('mov-imm');
          d.immediate = f('imm8');
          return;
        case 'CMP_imm_T1':
          set(mn('cmp', false, false), `${r(f('rn'))}, #${f('imm8')}`);
          classes.add('cmp-imm');
          d.immediate = f('imm8');
          return;
        case 'ADD_imm_T2': case 'SUB_imm_T2':
          set(mn(base.slice(0, 3).toLowerCase(), lowS, false), `${r(f('rdn'))}, #${f('imm8')}`);
          return;
        case 'TST_reg_T1': case 'CMP_reg_T1': case 'CMN_reg_T1':
          set(mn(base.slice(0, 3).toLowerCase(), false, false), `${r(f('rn'))}, ${r(f('rm'))}`);
          return;
        case 'RSB_imm_T1':
          set(mn('rsb', lowS, false), `${r(f('rd'))}, ${r(f('rn'))}, #0`);
          return;
        case 'MUL_T1':
          set(mn('mul', lowS, false), `${r(f('rdm'))}, ${r(f('rn'))}, ${r(f('rdm'))}`);
          return;
        case 'ADD_reg_T2': {
          const dn = (f('dn') << 3) | f('rdn');
          const m = f('rm');
          set(mn('add', false, false), m === 13 ? `${r(dn)}, sp, ${r(dn)}` : `${r(dn)}, ${r(m)}`);
          if (dn === 15) classes.add('writes-pc').add('indirect-branch');
          if (m === 15) classes.add('pc-relative');
          return;
        }
        case 'CMP_reg_T2':
          set(mn('cmp', false, false), `${r((f('n') << 3) | f('rn'))}, ${r(f('rm'))}`);
          return;
        case 'MOV_reg_T1': {
          const dd = (f('d') << 3) | f('rd');
          const m = f('rm');
          set(mn('mov', false, false), `${r(dd)}, ${r(m)}`);
          if (dd === 15) {
            classes.add('writes-pc');
            classes.add(m === 14 ? 'mov-pc-lr' : 'indirect-branch');
          }
          if (dd === 12 && m === 13) classes.add('mov-ip-sp');
          if (dd === 7 && m === 13) classes.add('mov-fp-sp');
          return;
        }
        case 'BX_T1':
          set(mn('bx', false, false), r(f('rm')));
          classes.add(f('rm') === 14 ? 'bx-lr' : 'indirect-branch');
          return;
        case 'BLX_reg_T1':
          set(mn('blx', false, false), r(f('rm')));
          classes.add('call').add('indirect-branch');
          return;
        case 'LDR_lit_T1': {
          const imm = f('imm8') << 2;
          set(mn('ldr', false, false), `${r(f('rt'))}, [pc, #${imm}]`);
          classes.add('pc-relative-load').add('pc-relative');
          d.literalAddress = (alignedPc + imm) >>> 0;
          return;
        }
        case 'STR_reg_T1': case 'STRH_reg_T1': case 'STRB_reg_T1': case 'LDRSB_reg_T1': case 'LDR_reg_T1': case 'LDRH_reg_T1':
        case 'LDRB_reg_T1': case 'LDRSH_reg_T1':
          set(mn(base.replace('_reg', '').toLowerCase(), false, false), `${r(f('rt'))}, [${r(f('rn'))}, ${r(f('rm'))}]`);
          return;
        case 'STR_imm_T1': case 'LDR_imm_T1': case 'STRB_imm_T1': case 'LDRB_imm_T1': case 'STRH_imm_T1': case 'LDRH_imm_T1': {
          const scale = base.includes('B') ? 1 : base.includes('H') ? 2 : 4;
          const imm = f('imm5') * scale;
          set(mn(base.replace('_imm', '').toLowerCase(), false, false), `${r(f('rt'))}, ${addr(f('rn'), imm ? `#${imm}` : '')}`);
          return;
        }
        case 'STR_imm_T2': case 'LDR_imm_T2': {
          const imm = f('imm8') << 2;
          set(mn(base.replace('_imm', '').toLowerCase(), false, false), `${r(f('rt'))}, ${addr(13, imm ? `#${imm}` : '')}`);
          return;
        }
        case 'ADR_T1':
          set(mn('adr', false, false), `${r(f('rd'))}, #${f('imm8') << 2}`);
          classes.add('pc-relative');
          return;
        case 'ADD_sp_imm_T1': {
          const imm = f('imm8') << 2;
          set(mn('add', false, false), `${r(f('rd'))}, sp, #${imm}`);
          if (f('rd') === 7) {
            classes.add('add-fp-sp');
            d.immediate = imm;
          }
          return;
        }
        case 'ADD_sp_imm_T2':
          set(mn('add', false, false), `sp, #${f('imm7') << 2}`);
          return;
        case 'SUB_sp_imm_T1':
          set(mn('sub', false, false), `sp, #${f('imm7') << 2}`);
          classes.add('sub-sp');
          d.immediate = f('imm7') << 2;
          return;
        case 'CBZ_T1': {
          const target = (pcValue + ((f('i') << 6) | (f('imm5') << 1))) >>> 0;
          set(f('op') ? 'cbnz' : 'cbz', `${r(f('rn'))}, ${hex(target)}`);
          classes.add('branch');
          d.target = target;
          cond = 15;
          return;
        }
        case 'SXTH_T1': case 'SXTB_T1': case 'UXTH_T1': case 'UXTB_T1': case 'REV_T1': case 'REV16_T1': case 'REVSH_T1':
          set(mn(base.toLowerCase(), false, false), `${r(f('rd'))}, ${r(f('rm'))}`);
          return;
        case 'PUSH_T1': case 'POP_T1': {
          const list = name === 'PUSH_T1' ? (f('m') << 14) | f('list') : (f('p') << 15) | f('list');
          if (list === 0) {
            classes.add('undefined');
            return;
          }
          set(mn(name === 'PUSH_T1' ? 'push' : 'pop', false, false), regList(list));
          classes.add(name === 'PUSH_T1' ? 'push' : 'pop');
          d.registerList = list;
          if (list & 0x8000) classes.add('ldm-pc').add('writes-pc');
          return;
        }
        case 'SETEND_T1':
          set('setend', f('e') ? 'be' : 'le');
          cond = 15;
          return;
        case 'CPS_T1': {
          const flags = (f('a') ? 'a' : '') + (f('i') ? 'i' : '') + (f('f') ? 'f' : '');
          // llvm-objdump writes the 16-bit form with a space, not a tab, in armv7-a objects.
          set(`${f('im') ? 'cpsid' : 'cpsie'} ${flags || 'none'}`, '');
          cond = 15;
          return;
        }
        case 'BKPT_T1':
          set('bkpt', `#${f('imm8')}`);
          classes.add('bkpt');
          d.immediate = f('imm8');
          cond = 15;
          return;
        case 'IT_T1': {
          const first = f('firstcond');
          const mask = f('mask');
          let suffix = '';
          const trailing = mask & -mask;
          // firstcond 1111 (UNPREDICTABLE) is read as AL, as llvm-objdump does.
          const low = first === 15 ? 0 : first & 1;
          for (let b = 8; b > trailing; b >>= 1) suffix += ((mask & b) !== 0) === (low !== 0) ? 't' : 'e';
          set(`it${suffix}`, CONDITION_NAMES[first] || 'al');
          classes.add('it');
          cond = 15;
          return;
        }
        case 'NOP_T1': case 'YIELD_T1': case 'WFE_T1': case 'WFI_T1': case 'SEV_T1':
          set(mn(base.toLowerCase(), false, false), '');
          return;
        case 'HINT_T1':
          set(mn('hint', false, false), `#${f('op')}`);
          return;
        case 'STM_T1': case 'LDM_T1': {
          const n = f('rn');
          const list = f('list');
          if (list === 0) {
            classes.add('undefined');
            return;
          }
          const wb = name === 'STM_T1' || (list & (1 << n)) === 0;
          set(mn(name === 'STM_T1' ? 'stm' : 'ldm', false, false), `${r(n)}${wb ? '!' : ''}, ${regList(list)}`);
          d.registerList = list;
          return;
        }
        case 'B_T1': {
          // Inside an IT block (UNPREDICTABLE) llvm-objdump prints the block's condition.
          cond = inIt ? itCond : f('cond');
          const target = (pcValue + ((f('imm8') << 24) >> 23)) >>> 0;
          set(`b${CONDITION_NAMES[cond]}`, hex(target));
          classes.add('branch');
          d.target = target;
          return;
        }
        case 'UDF_T1':
          set('udf', `#${f('imm8')}`);
          classes.add('udf');
          d.immediate = f('imm8');
          cond = 15;
          return;
        case 'SVC_T1':
          set(mn('svc', false, false), `#${f('imm8')}`);
          classes.add('svc');
          d.immediate = f('imm8');
          return;
        case 'B_T2': {
          const target = (pcValue + ((f('imm11') << 21) >> 20)) >>> 0;
          set(mn('b', false, false), hex(target));
          classes.add('branch');
          d.target = target;
          return;
        }
      }
      classes.add('undefined');
      return;
    }
    // ---- 32-bit ----
    const dp = /^(AND|TST|BIC|ORR|MOV|ORN|MVN|EOR|TEQ|ADD|CMN|ADC|SBC|SUB|CMP|RSB)_(reg|imm)_T\d$/.exec(name);
    if (dp && (name !== 'ADD_imm_T4' && name !== 'SUB_imm_T4')) {
      const info = WIDE_DP[dp[1]!]!;
      const reg = dp[2] === 'reg';
      const s = !info.compare && f('s') === 1;
      const rd = f('rd');
      const rn = f('rn');
      let second: string;
      if (reg) second = `${r(f('rm'))}${sh32()}`;
      else {
        const value = thumbExpandImmediate(i12());
        second = `#${value}`;
        if (dp[1] === 'CMP') {
          classes.add('cmp-imm');
          d.immediate = value;
        }
        if (info.move) {
          classes.add('mov-imm');
          d.immediate = dp[1] === 'MOV' ? value : ~value >>> 0;
        }
        if (dp[1] === 'SUB' && rd === 13 && rn === 13) {
          classes.add('sub-sp');
          d.immediate = value;
        }
        if (dp[1] === 'ADD' && rn === 13 && (rd === 7 || rd === 11)) {
          classes.add('add-fp-sp');
          d.immediate = value;
        }
      }
      const w = reg ? info.regW : info.immW;
      if (dp[1] === 'MOV' && reg) {
        // mov.w with a shift prints as the shift.
        const type = f('type');
        const amount = (f('imm3') << 2) | f('imm2');
        if (type === 0 && amount === 0) set(mn('mov', s, true), `${r(rd)}, ${r(f('rm'))}`);
        else if (type === 3 && amount === 0) set(mn('rrx', s, false), `${r(rd)}, ${r(f('rm'))}`);
        else set(mn(SHIFT_NAMES[type]!, s, true), `${r(rd)}, ${r(f('rm'))}, #${amount === 0 ? 32 : amount}`);
      } else if (info.compare) set(mn(info.mn, false, w), `${r(rn)}, ${second}`);
      else if (info.move) set(mn(info.mn, s, w), `${r(rd)}, ${second}`);
      else set(mn(info.mn, s, w), `${r(rd)}, ${r(rn)}, ${second}`);
      if (rd === 15 && !info.compare) classes.add('writes-pc');
      if (rn === 15 && !info.move) classes.add('pc-relative');
      return;
    }
    switch (name) {
      case 'SRS_T1': case 'SRS_T2':
        set(`srs${name === 'SRS_T1' ? 'db' : 'ia'}${c}`, `sp${f('w') ? '!' : ''}, #${f('mode')}`);
        return;
      case 'RFE_T1': case 'RFE_T2':
        set(`rfe${name === 'RFE_T1' ? 'db' : 'ia'}${c}`, `${r(f('rn'))}${f('w') ? '!' : ''}`);
        classes.add('writes-pc');
        return;
      case 'STM_T2': case 'LDM_T2': case 'STMDB_T1': case 'LDMDB_T1': {
        const load = name.startsWith('LDM');
        const db = name.includes('DB');
        const n = f('rn');
        const wb = f('w') === 1;
        const list = enc.fields.some(([x]) => x === 'm') ? (f('m') << 14) | f('list') : f('list');
        d.registerList = list;
        if (n === 13 && wb && ((load && !db) || (!load && db)) && bitCount(list) > 1) {
          set(mn(load ? 'pop' : 'push', false, true), regList(list));
          classes.add(load ? 'pop' : 'push');
        } else {
          set(mn(`${load ? 'ldm' : 'stm'}${db ? 'db' : ''}`, false, !db), `${r(n)}${wb ? '!' : ''}, ${regList(list)}`);
          if (n === 13 && wb) classes.add(load ? 'pop' : 'push');
        }
        if (load && list & 0x8000) classes.add('ldm-pc').add('writes-pc');
        return;
      }
      case 'STREX_T1': case 'LDREX_T1': {
        const imm = f('imm8') << 2;
        const at = addr(f('rn'), imm ? `#${imm}` : '');
        if (name === 'STREX_T1') set(mn('strex', false, false), `${r(f('rd'))}, ${r(f('rt'))}, ${at}`);
        else set(mn('ldrex', false, false), `${r(f('rt'))}, ${at}`);
        classes.add('exclusive');
        return;
      }
      case 'STRD_imm_T1': case 'LDRD_imm_T1': {
        const p = f('p');
        const w = f('w');
        if (!p && !w) {
          classes.add('undefined'); // the exclusive and table-branch space
          return;
        }
        const imm = f('imm8') << 2;
        const off = signedImm(f('u'), imm);
        const n = f('rn');
        let at: string;
        if (p) at = `[${r(n)}${imm === 0 && f('u') ? '' : `, ${off}`}]${w ? '!' : ''}`;
        else at = `[${r(n)}], ${off}`;
        set(mn(name === 'STRD_imm_T1' ? 'strd' : 'ldrd', false, false), `${r(f('rt'))}, ${r(f('rt2'))}, ${at}`);
        if (n === 15) {
          classes.add('pc-relative-load').add('pc-relative');
          d.literalAddress = (alignedPc + (f('u') ? imm : -imm)) >>> 0;
        }
        return;
      }
      case 'STREXB_T1': case 'STREXH_T1':
        set(mn(name.slice(0, 6).toLowerCase(), false, false), `${r(f('rd'))}, ${r(f('rt'))}, [${r(f('rn'))}]`);
        classes.add('exclusive');
        return;
      case 'STREXD_T1':
        set(mn('strexd', false, false), `${r(f('rd'))}, ${r(f('rt'))}, ${r(f('rt2'))}, [${r(f('rn'))}]`);
        classes.add('exclusive');
        return;
      case 'LDREXB_T1': case 'LDREXH_T1':
        set(mn(name.slice(0, 6).toLowerCase(), false, false), `${r(f('rt'))}, [${r(f('rn'))}]`);
        classes.add('exclusive');
        return;
      case 'LDREXD_T1':
        set(mn('ldrexd', false, false), `${r(f('rt'))}, ${r(f('rt2'))}, [${r(f('rn'))}]`);
        classes.add('exclusive');
        return;
      case 'TBB_T1': case 'TBH_T1':
        set(mn(name === 'TBB_T1' ? 'tbb' : 'tbh', false, false), `[${r(f('rn'))}, ${r(f('rm'))}${name === 'TBH_T1' ? ', lsl #1' : ''}]`);
        classes.add('indirect-branch').add('writes-pc');
        return;
      case 'PKH_T1': {
        const amount = (f('imm3') << 2) | f('imm2');
        const tb = f('tb');
        set(mn(tb ? 'pkhtb' : 'pkhbt', false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}${tb ? `, asr #${amount || 32}` : amount ? `, lsl #${amount}` : ''}`);
        return;
      }
      case 'ADD_imm_T4': case 'SUB_imm_T4': {
        set(mn(name === 'ADD_imm_T4' ? 'addw' : 'subw', false, false), `${r(f('rd'))}, ${r(f('rn'))}, #${i12()}`);
        if (name === 'ADD_imm_T4' && f('rn') === 13 && (f('rd') === 7 || f('rd') === 11)) {
          classes.add('add-fp-sp');
          d.immediate = i12();
        }
        return;
      }
      case 'ADR_T3': case 'ADR_T2':
        set(mn('adr', false, true), `${r(f('rd'))}, #${name === 'ADR_T2' ? '-' : ''}${i12()}`);
        classes.add('pc-relative');
        return;
      case 'MOVW_T3': case 'MOVT_T1': {
        const imm = (f('imm4') << 12) | i12();
        set(mn(name === 'MOVW_T3' ? 'movw' : 'movt', false, false), `${r(f('rd'))}, #${imm}`);
        classes.add(name === 'MOVW_T3' ? 'movw' : 'movt');
        d.immediate = imm;
        return;
      }
      case 'SSAT_T1': case 'USAT_T1': {
        const amount = (f('imm3') << 2) | f('imm2');
        const shift = f('sh') ? `, asr #${amount || 32}` : amount ? `, lsl #${amount}` : '';
        set(mn(name === 'SSAT_T1' ? 'ssat' : 'usat', false, false), `${r(f('rd'))}, #${f('satimm') + (name === 'SSAT_T1' ? 1 : 0)}, ${r(f('rn'))}${shift}`);
        return;
      }
      case 'SSAT16_T1': case 'USAT16_T1':
        set(mn(name === 'SSAT16_T1' ? 'ssat16' : 'usat16', false, false), `${r(f('rd'))}, #${f('satimm') + (name === 'SSAT16_T1' ? 1 : 0)}, ${r(f('rn'))}`);
        return;
      case 'SBFX_T1': case 'UBFX_T1':
        set(mn(name.slice(0, 4).toLowerCase(), false, false), `${r(f('rd'))}, ${r(f('rn'))}, #${(f('imm3') << 2) | f('imm2')}, #${f('widthm1') + 1}`);
        return;
      case 'BFI_T1': case 'BFC_T1': {
        let lsb = (f('imm3') << 2) | f('imm2');
        let width = f('msb') - lsb + 1;
        if (width < 1) {
          // UNPREDICTABLE (msb < lsb): llvm-objdump shows one bit at msb.
          lsb = f('msb');
          width = 1;
        }
        set(mn(name.slice(0, 3).toLowerCase(), false, false), name === 'BFC_T1' ? `${r(f('rd'))}, #${lsb}, #${width}` : `${r(f('rd'))}, ${r(f('rn'))}, #${lsb}, #${width}`);
        return;
      }
      case 'B_T3': {
        if (f('cond') >= 14) {
          classes.add('undefined');
          return;
        }
        cond = inIt ? itCond : f('cond');
        const offset = (f('s') << 20) | (f('j2') << 19) | (f('j1') << 18) | (f('imm6') << 12) | (f('imm11') << 1);
        const target = (pcValue + ((offset << 11) >> 11)) >>> 0;
        set(`b${CONDITION_NAMES[cond]}.w`, hex(target));
        classes.add('branch');
        d.target = target;
        return;
      }
      case 'B_T4': case 'BL_T1': case 'BLX_imm_T2': {
        const s = f('s');
        const i1 = 1 ^ f('j1') ^ s;
        const i2 = 1 ^ f('j2') ^ s;
        const low = name === 'BLX_imm_T2' ? f('imm10l') << 2 : f('imm11') << 1;
        const offset = ((s << 24) | (i1 << 23) | (i2 << 22) | (f('imm10') << 12) | low) << 7 >> 7;
        if (name === 'BLX_imm_T2' && f('h')) {
          classes.add('undefined');
          return;
        }
        const target = ((name === 'BLX_imm_T2' ? alignedPc : pcValue) + offset) >>> 0;
        set(name === 'B_T4' ? mn('b', false, true) : mn(name === 'BL_T1' ? 'bl' : 'blx', false, false), hex(target));
        classes.add('branch');
        if (name !== 'B_T4') classes.add('call');
        d.target = target;
        return;
      }
      case 'MSR_reg_T1':
        set(mn('msr', false, false), `${psrName(f('r'), f('mask'))}, ${r(f('rn'))}`);
        return;
      case 'MRS_T1':
        set(mn('mrs', false, false), `${r(f('rd'))}, ${f('r') ? 'spsr' : 'apsr'}`);
        return;
      case 'MSR_banked_T1': case 'MRS_banked_T1': {
        const reg = BANKED_NAMES[(f('r') << 5) | (f('m') << 4) | f('m1')];
        if (reg === undefined) {
          classes.add('undefined');
          return;
        }
        if (name === 'MRS_banked_T1') set(mn('mrs', false, false), `${r(f('rd'))}, ${reg}`);
        else set(mn('msr', false, false), `${reg}, ${r(f('rn'))}`);
        return;
      }
      case 'CPS_T2': {
        const imod = f('imod');
        const flags = (f('a') ? 'a' : '') + (f('i') ? 'i' : '') + (f('f') ? 'f' : '');
        cond = 15;
        if (imod >= 2) set(`${imod === 2 ? 'cpsie' : 'cpsid'}${f('m') ? '' : '.w'}`, f('m') ? `${flags || 'none'}, #${f('mode')}` : flags || 'none');
        else if (imod === 0 && f('m')) set('cps', `#${f('mode')}`);
        else classes.add('undefined');
        return;
      }
      case 'NOP_T2': case 'YIELD_T2': case 'WFE_T2': case 'WFI_T2': case 'SEV_T2':
        set(mn(base.toLowerCase(), false, true), '');
        return;
      case 'DBG_T1':
        set(mn('dbg', false, false), `#${f('option')}`);
        return;
      case 'HINT_T2':
        set(mn('hint', false, true), `#${f('op')}`);
        return;
      case 'CLREX_T1':
        set(mn('clrex', false, false), '');
        classes.add('exclusive');
        return;
      case 'DSB_T1': case 'DMB_T1': {
        const opt = f('option');
        set(mn(base.toLowerCase(), false, false), BARRIER_OPTIONS[opt] ?? `#0x${opt.toString(16)}`);
        return;
      }
      case 'ISB_T1': {
        const opt = f('option');
        set(mn('isb', false, false), opt === 15 ? 'sy' : `#0x${opt.toString(16)}`);
        return;
      }
      case 'BXJ_T1':
        set(mn('bxj', false, false), r(f('rm')));
        classes.add('indirect-branch');
        return;
      case 'SUBS_pc_lr_T1':
        set(mn('subs', false, false), `pc, lr, #${f('imm8')}`);
        classes.add('writes-pc');
        return;
      case 'SMC_T1':
        set(mn('smc', false, false), `#${f('imm4')}`);
        return;
      case 'UDF_T2': {
        const imm = (f('imm4') << 12) | f('imm12');
        set('udf.w', `#${imm}`);
        classes.add('udf');
        d.immediate = imm;
        cond = 15;
        return;
      }
      case 'LSL_reg_T2': case 'LSR_reg_T2': case 'ASR_reg_T2': case 'ROR_reg_T2':
        set(mn(base.slice(0, 3).toLowerCase(), f('s'), true), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return;
      case 'MCR_T1': case 'MRC_T1': case 'MCR2_T2': case 'MRC2_T2':
        if (coprocessor2()) return;
        set(name.slice(0, name.indexOf('_')).toLowerCase() + c, `p${f('coproc')}, #${f('opc1')}, ${name.startsWith('MRC') && f('rt') === 15 ? 'apsr_nzcv' : r(f('rt'))}, c${f('crn')}, c${f('crm')}, #${f('opc2')}`);
        return;
      case 'CDP_T1': case 'CDP2_T2':
        if (coprocessor2()) return;
        set(name.slice(0, name.indexOf('_')).toLowerCase() + c, `p${f('coproc')}, #${f('opc1')}, c${f('crd')}, c${f('crn')}, c${f('crm')}, #${f('opc2')}`);
        return;
      case 'MCRR_T1': case 'MRRC_T1': case 'MCRR2_T2': case 'MRRC2_T2':
        if (coprocessor2()) return;
        set(name.slice(0, name.indexOf('_')).toLowerCase() + c, `p${f('coproc')}, #${f('opc1')}, ${r(f('rt'))}, ${r(f('rt2'))}, c${f('crm')}`);
        return;
      case 'STC_T1': case 'LDC_T1': case 'STC2_T2': case 'LDC2_T2': {
        if (coprocessor2()) return;
        const two = name.includes('2_');
        const m = name.slice(0, 3).toLowerCase() + (two ? '2' : '') + (f('d') ? 'l' : '') + c;
        const imm8 = f('imm8');
        const sign = f('u') ? '' : '-';
        let at: string;
        if (f('p')) at = imm8 === 0 && f('u') && !f('w') ? `[${r(f('rn'))}]` : `[${r(f('rn'))}, #${sign}${imm8 * 4}]${f('w') ? '!' : ''}`;
        else if (f('w')) at = `[${r(f('rn'))}], #${sign}${imm8 * 4}`;
        else at = `[${r(f('rn'))}], {${imm8}}`;
        set(m, `p${f('coproc')}, c${f('crd')}, ${at}`);
        return;
      }
    }
    if (describeWideMedia(base)) return;
    if (describeWideLoadStore(base)) return;
    classes.add('undefined');
  }

  /** Coprocessors 10 and 11 (VFP, Advanced SIMD) have no second-space (…2) forms but the unindexed ldc2/stc2: undefined. */
  function coprocessor2(): boolean {
    if (!name.includes('2_') || (f('coproc') & 0xe) !== 10) return false;
    if (/^(LDC|STC)2/.test(name) && !f('p') && !f('w') && f('u')) return false;
    classes.add('undefined');
    return true;
  }

  function describeWideMedia(base: string): boolean {
    const lower = base.toLowerCase();
    if (base in EXTENDS) {
      const rot = f('rot');
      const narrowExists = base === 'SXTH' || base === 'SXTB' || base === 'UXTH' || base === 'UXTB';
      const rotText = rot ? `, ror #${rot * 8}` : '';
      if (/^(S|U)XTA/.test(base)) set(mn(EXTENDS[base]!, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}${rotText}`);
      else set(mn(EXTENDS[base]!, false, narrowExists), `${r(f('rd'))}, ${r(f('rm'))}${rotText}`);
      return true;
    }
    if (/^(S|Q|SH|U|UQ|UH)(ADD16|ASX|SAX|SUB16|ADD8|SUB8)$/.test(base) || base === 'SEL') {
      set(mn(lower, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
      return true;
    }
    switch (base) {
      case 'QADD': case 'QDADD': case 'QSUB': case 'QDSUB':
        set(mn(lower, false, false), `${r(f('rd'))}, ${r(f('rm'))}, ${r(f('rn'))}`);
        return true;
      case 'REV': case 'REV16': case 'REVSH': case 'RBIT': case 'CLZ':
        set(mn(lower, false, base !== 'RBIT' && base !== 'CLZ'), `${r(f('rd'))}, ${r(f('rm'))}`);
        return true;
      case 'MLA': case 'MLS':
        set(mn(lower, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}, ${r(f('ra'))}`);
        return true;
      case 'MUL':
        set(mn('mul', false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
      case 'SMLAxy': case 'SMULxy': {
        const xy = (f('n') ? 't' : 'b') + (f('m') ? 't' : 'b');
        if (base === 'SMLAxy') set(mn(`smla${xy}`, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}, ${r(f('ra'))}`);
        else set(mn(`smul${xy}`, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
      }
      case 'SMLAWy': case 'SMULWy': {
        const y = f('m') ? 't' : 'b';
        if (base === 'SMLAWy') set(mn(`smlaw${y}`, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}, ${r(f('ra'))}`);
        else set(mn(`smulw${y}`, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
      }
      case 'SMLAD': case 'SMLSD': case 'SMUAD': case 'SMUSD': {
        const x = f('m') ? 'x' : '';
        if (base === 'SMUAD' || base === 'SMUSD') set(mn(lower + x, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        else set(mn(lower + x, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}, ${r(f('ra'))}`);
        return true;
      }
      case 'SMMLA': case 'SMMLS': case 'SMMUL': {
        const x = f('r') ? 'r' : '';
        if (base === 'SMMUL') set(mn(lower + x, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        else set(mn(lower + x, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}, ${r(f('ra'))}`);
        return true;
      }
      case 'USADA8':
        set(mn('usada8', false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}, ${r(f('ra'))}`);
        return true;
      case 'USAD8': case 'SDIV': case 'UDIV':
        set(mn(lower, false, false), `${r(f('rd'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
      case 'SMULL': case 'UMULL': case 'SMLAL': case 'UMLAL': case 'UMAAL':
        set(mn(lower, false, false), `${r(f('rdlo'))}, ${r(f('rdhi'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
      case 'SMLALxy':
        set(mn(`smlal${f('n') ? 't' : 'b'}${f('m') ? 't' : 'b'}`, false, false), `${r(f('rdlo'))}, ${r(f('rdhi'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
      case 'SMLALD': case 'SMLSLD':
        set(mn(lower + (f('m') ? 'x' : ''), false, false), `${r(f('rdlo'))}, ${r(f('rdhi'))}, ${r(f('rn'))}, ${r(f('rm'))}`);
        return true;
    }
    return false;
  }

  function describeWideLoadStore(base: string): boolean {
    const hint = /^(PLD|PLI)_(lit|imm|reg)$/.exec(base);
    if (hint) {
      if (hint[1] === 'PLD' && enc.fields.some(([n]) => n === 'w') && f('w')) {
        classes.add('undefined'); // pldw needs the Multiprocessing Extensions, which llvm's thumbv7 lacks
        return true;
      }
      const kind = hint[1]!.toLowerCase();
      if (hint[2] === 'lit') set(kind, `[pc, ${signedImm(f('u'), f('imm12'))}]`);
      else if (hint[2] === 'reg') set(kind, `[${r(f('rn'))}, ${r(f('rm'))}${f('imm2') ? `, lsl #${f('imm2')}` : ''}]`);
      else if (name.endsWith('_T1')) set(kind, `[${r(f('rn'))}, #${f('imm12')}]`);
      else set(kind, `[${r(f('rn'))}, #-${f('imm8')}]`);
      if (hint[2] === 'lit') classes.add('pc-relative');
      return true;
    }
    const m = /^(STR|LDR)(B|H|SB|SH)?(T)?(?:_(imm|reg|lit))?$/.exec(base);
    if (!m) return false;
    const load = m[1] === 'LDR';
    const op = (m[1]! + (m[2] ?? '') + (m[3] ?? '')).toLowerCase();
    const t = f('rt');
    const n = f('rn');
    const kind = m[3] ? 'unprivileged' : m[4];
    const hasPuw = enc.fields.some(([x]) => x === 'p');
    // Stores with Rn = 15, P = W = 0, and byte or halfword loads to r15 that are no hint: UNDEFINED or unallocated.
    if ((!load && n === 15) || (hasPuw && !f('p') && !f('w') && n !== 15) || (load && t === 15 && m[1] === 'LDR' && m[2] !== undefined)) {
      classes.add('undefined');
      return true;
    }
    let text: string;
    let w = false;
    if (kind === 'lit' || n === 15) {
      // Literal: Align(PC, 4) +/- imm12 (every load form with Rn = 15 is the literal one, U = bit 23).
      const add = (v >>> 23) & 1;
      const imm = v & 0xfff;
      const op = (m[1]! + (m[2] ?? '')).toLowerCase();
      const text = `${r(t)}, [pc, ${signedImm(add, imm)}]`;
      set(mn(op, false, true), text);
      classes.add('pc-relative').add('pc-relative-load');
      d.literalAddress = (alignedPc + (add ? imm : -imm)) >>> 0;
      if (t === 15) classes.add('writes-pc');
      return true;
    }
    if (kind === 'unprivileged') {
      const imm = f('imm8');
      text = `${r(t)}, ${addr(n, imm ? `#${imm}` : '')}`;
    } else if (kind === 'reg') {
      text = `${r(t)}, [${r(n)}, ${r(f('rm'))}${f('imm2') ? `, lsl #${f('imm2')}` : ''}]`;
      w = true;
    } else if (enc.fields.some(([x]) => x === 'imm12')) {
      const imm = f('imm12');
      text = `${r(t)}, ${addr(n, imm ? `#${imm}` : '')}`;
      w = true;
    } else {
      // imm8 with P, U, W.
      const p = f('p');
      const wb = f('w');
      const imm = f('imm8');
      const off = signedImm(f('u'), imm);
      if (p) text = `${r(t)}, [${r(n)}${imm === 0 && f('u') ? '' : `, ${off}`}]${wb ? '!' : ''}`;
      else text = `${r(t)}, [${r(n)}], ${off}`;
      // str rt, [sp, #-4]! and ldr rt, [sp], #4 are single-register push/pop
      // (PUSH/POP encoding T3): llvm-objdump keeps their str/ldr spelling.
      if (n === 13 && imm === 4 && op === 'str' && p && wb && !f('u')) {
        classes.add('push');
        d.registerList = 1 << t;
      }
      if (n === 13 && imm === 4 && op === 'ldr' && !p && wb && f('u')) {
        classes.add('pop');
        d.registerList = 1 << t;
        if (t === 15) classes.add('ldm-pc');
      }
    }
    set(mn(op, false, w), text);
    if (load && t === 15) classes.add('writes-pc');
    return true;
  }

  return finish(v, address, name, cond, d);
}
