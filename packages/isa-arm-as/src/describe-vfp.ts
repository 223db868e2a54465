// VFP (VFPv3-D16) instructions as llvm-objdump prints them, for both
// describers: the A7 encodings keep their fields at the same bits in A32 and
// T32 (bits 27:0), so one function serves both, given the encoding's name in
// a32.decode or t32.decode (without the _T1 suffix), the word and the
// condition suffix. Pure functions, no I/O.
import { r, type Described } from './arm-syntax.js';

const bit = (w: number, n: number): number => (w >>> n) & 1;
/** Single-precision register Vx:X, double-precision X:Vx. */
const sReg = (v: number, x: number): string => `s${(v << 1) | x}`;
const dReg = (v: number, x: number): string => `d${(x << 4) | v}`;

/** VFPExpandImm's value printed as llvm does: #-1.000000e+00. */
function expandedImmediate(imm8: number): string {
  const sign = imm8 & 0x80 ? -1 : 1;
  const b = (imm8 >> 6) & 1;
  const exp = (b ? -3 : 1) + ((imm8 >> 4) & 3); // NOT(b):b...b:cd, unbiased
  const value = sign * (1 + (imm8 & 15) / 16) * 2 ** exp;
  const [mantissa, e] = value.toExponential(6).split('e');
  const n = Number(e);
  return `#${mantissa}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

/** VMRS/VMSR system register names by the reg field. */
const SYSTEM_REGISTERS: Record<number, string> = { 0: 'fpsid', 1: 'fpscr', 6: 'mvfr1', 7: 'mvfr0', 8: 'fpexc' };

/**
 * Fills `d` for a VFP encoding `name` (a32.decode's spelling); false when the
 * word is not a VFPv3-D16 instruction (UNDEFINED). `pcValue` is what r15
 * reads as (address + 8 in A32, + 4 in T32), for literal loads.
 */
export function describeVfp(name: string, word: number, c: string, pcValue: number, d: Described): boolean {
  const w = word >>> 0;
  const dp = bit(w, 8) === 1;
  const ty = dp ? '.f64' : '.f32';
  const vd = (w >>> 12) & 15;
  const vn = (w >>> 16) & 15;
  const vm = w & 15;
  const D = bit(w, 22);
  const N = bit(w, 7);
  const M = bit(w, 5);
  const regD = dp ? dReg(vd, D) : sReg(vd, D);
  const regN = dp ? dReg(vn, N) : sReg(vn, N);
  const regM = dp ? dReg(vm, M) : sReg(vm, M);
  const set = (mnemonic: string, operands: string): boolean => {
    d.mnemonic = mnemonic;
    d.operands = operands;
    d.classes.add('vfp');
    return true;
  };
  const rn = (w >>> 16) & 15;
  const rt = (w >>> 12) & 15;
  const rt2 = (w >>> 16) & 15;
  const imm8 = w & 0xff;
  const THREE: Record<string, string> = {
    VMLA: 'vmla', VMLS: 'vmls', VNMLS: 'vnmls', VNMLA: 'vnmla', VMUL: 'vmul', VNMUL: 'vnmul', VADD: 'vadd', VSUB: 'vsub', VDIV: 'vdiv',
  };
  const TWO: Record<string, string> = { VMOV_reg: 'vmov', VABS: 'vabs', VNEG: 'vneg', VSQRT: 'vsqrt' };
  if (name in THREE) return set(`${THREE[name]}${c}${ty}`, `${regD}, ${regN}, ${regM}`);
  if (name in TWO) return set(`${TWO[name]}${c}${ty}`, `${regD}, ${regM}`);
  switch (name) {
    case 'VLDR':
    case 'VSTR': {
      const offset = imm8 << 2;
      const add = bit(w, 23) === 1;
      const ofs = offset === 0 && add ? '' : `, #${add ? '' : '-'}${offset}`;
      if (rn === 15) {
        d.classes.add('pc-relative');
        if (name === 'VLDR') d.literalAddress = ((pcValue & ~3) + (add ? offset : -offset)) >>> 0;
      }
      return set(`${name.toLowerCase()}${c}`, `${regD}, [${r(rn)}${ofs}]`);
    }
    case 'VLDMIA':
    case 'VLDMDB':
    case 'VSTMIA':
    case 'VSTMDB': {
      const wback = bit(w, 21) === 1;
      const count = dp ? imm8 >> 1 : imm8;
      const first = dp ? (D << 4) | vd : (vd << 1) | D;
      if (count === 0 || first + count > (dp ? 16 : 32)) return false;
      const list = Array.from({ length: count }, (_, i) => `${dp ? 'd' : 's'}${first + i}`).join(', ');
      const x = dp && (imm8 & 1) === 1; // FLDMX/FSTMX
      const load = name.startsWith('VLDM');
      const db = name.endsWith('DB');
      if (rn === 13 && wback && !x && load !== db) return set(`${load ? 'vpop' : 'vpush'}${c}`, `{${list}}`);
      const mn = x ? `f${load ? 'ld' : 'st'}m${db ? 'db' : 'ia'}x` : `v${load ? 'ld' : 'st'}m${db ? 'db' : 'ia'}`;
      if (rn === 15) d.classes.add('pc-relative');
      return set(`${mn}${c}`, `${r(rn)}${wback ? '!' : ''}, {${list}}`);
    }
    case 'VMOV_2s': {
      const m = (vm << 1) | M;
      if (m === 31) return false;
      return bit(w, 20)
        ? set(`vmov${c}`, `${r(rt)}, ${r(rt2)}, s${m}, s${m + 1}`)
        : set(`vmov${c}`, `s${m}, s${m + 1}, ${r(rt)}, ${r(rt2)}`);
    }
    case 'VMOV_d': {
      const m = dReg(vm, M);
      return bit(w, 20) ? set(`vmov${c}`, `${r(rt)}, ${r(rt2)}, ${m}`) : set(`vmov${c}`, `${m}, ${r(rt)}, ${r(rt2)}`);
    }
    case 'VMOV_s': {
      const s = sReg(vn, N);
      return bit(w, 20) ? set(`vmov${c}`, `${r(rt)}, ${s}`) : set(`vmov${c}`, `${s}, ${r(rt)}`);
    }
    case 'VMOV_to_scalar':
      if ((w & 0x00400060) !== 0) return false; // the 8- and 16-bit forms are Advanced SIMD
      return set(`vmov${c}.32`, `${dReg(vn, N)}[${bit(w, 21)}], ${r(rt)}`);
    case 'VMOV_from_scalar':
      if ((w & 0x00c00060) !== 0) return false;
      return set(`vmov${c}.32`, `${r(rt)}, ${dReg(vn, N)}[${bit(w, 21)}]`);
    case 'VMRS':
    case 'VMSR': {
      const sys = SYSTEM_REGISTERS[(w >>> 16) & 15];
      if (sys === undefined) return false;
      if (name === 'VMSR') return set(`vmsr${c}`, `${sys}, ${r(rt)}`);
      return set(`vmrs${c}`, `${rt === 15 && sys === 'fpscr' ? 'APSR_nzcv' : r(rt)}, ${sys}`);
    }
    case 'VMOV_imm':
      return set(`vmov${c}${ty}`, `${regD}, ${expandedImmediate((((w >>> 16) & 15) << 4) | (w & 15))}`);
    case 'VCMP':
      return set(`vcmp${N ? 'e' : ''}${c}${ty}`, `${regD}, ${regM}`);
    case 'VCMP_zero':
      return set(`vcmp${N ? 'e' : ''}${c}${ty}`, `${regD}, #0`);
    case 'VCVT_ds':
      return dp
        ? set(`vcvt${c}.f32.f64`, `${sReg(vd, D)}, ${dReg(vm, M)}`)
        : set(`vcvt${c}.f64.f32`, `${dReg(vd, D)}, ${sReg(vm, M)}`);
    case 'VCVT_from_int':
      return set(`vcvt${c}${ty}.${N ? 's' : 'u'}32`, `${regD}, ${sReg(vm, M)}`);
    case 'VCVT_to_int':
      return set(`vcvt${N ? '' : 'r'}${c}.${bit(w, 16) ? 's' : 'u'}32${ty}`, `${sReg(vd, D)}, ${regM}`);
    case 'VCVT_fixed': {
      const size = N ? 32 : 16;
      const fbits = size - (((w & 15) << 1) | M);
      if (fbits < 0) return false;
      const fixed = `${bit(w, 16) ? 'u' : 's'}${size}`;
      const types = bit(w, 18) ? `.${fixed}${ty}` : `${ty}.${fixed}`;
      return set(`vcvt${c}${types}`, `${regD}, ${regD}, #${fbits}`);
    }
    default:
      return false;
  }
}
