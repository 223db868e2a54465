// Host-side view of one decoded instruction: the WebAssembly decoder finds the
// length and fields, this module adds the mnemonic, operands (AT&T syntax, as
// llvm-objdump prints them) and the classes providers need (ret, call, jmp,
// jcc, push %rbp, leave, RIP-relative ...). Names come from the generated
// form table, so the opcode table stays the single source of truth.
import { FORM_TABLE } from './generated/opcodes.js';

/** The decoder exports this module needs from the core. */
export interface DecoderExports {
  memory: WebAssembly.Memory;
  decode(available: number): number;
  DECODE_RECORD: WebAssembly.Global | number;
  DECODE_INPUT: WebAssembly.Global | number;
}

/** Raw fields of a decoded instruction. */
export interface DecodedFields {
  length: number;
  form: number;
  prefixes: number;
  rex: number;
  encoding: 'legacy' | 'vex' | 'evex' | 'xop';
  map: number;
  opcode: number;
  modrm: number | null;
  base: number;
  index: number;
  scale: number;
  ripRelative: boolean;
  disp: bigint;
  dispOffset: number;
  dispSize: number;
  imm: bigint;
  imm2: bigint;
  immOffset: number;
  immSize: number;
  opSize: number;
  addr32: boolean;
  reg: number;
  rm: number;
  vexMap: number;
  vexPP: number;
  vexW: number;
  vexL: number;
  vexV: number;
  opReg: number;
  segment: number;
}

/** What `describe` returns for one instruction. */
export interface InstructionDescription {
  address: bigint;
  length: number;
  bytes: Uint8Array;
  mnemonic: string;
  operands: string;
  /** Classes: ret call jmp jcc loop int3 nop push_rbp pop_rbp leave rip_relative priv indirect syscall string sse x87 invalid ... */
  classes: Set<string>;
  /** Branch/call target for relative forms. */
  target?: bigint;
  /** Whether the interpreter executes this form (else it raises #UD). */
  executed: boolean;
  fields: DecodedFields;
}

export const PFX_66 = 1, PFX_67 = 2, PFX_F2 = 4, PFX_F3 = 8, PFX_LOCK = 16, PFX_FS = 32, PFX_GS = 64;
const ENCODINGS = ['legacy', 'vex', 'evex', 'xop'] as const;

const R64 = ['rax', 'rcx', 'rdx', 'rbx', 'rsp', 'rbp', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15'];
const R32 = ['eax', 'ecx', 'edx', 'ebx', 'esp', 'ebp', 'esi', 'edi', 'r8d', 'r9d', 'r10d', 'r11d', 'r12d', 'r13d', 'r14d', 'r15d'];
const R16 = ['ax', 'cx', 'dx', 'bx', 'sp', 'bp', 'si', 'di', 'r8w', 'r9w', 'r10w', 'r11w', 'r12w', 'r13w', 'r14w', 'r15w'];
const R8REX = ['al', 'cl', 'dl', 'bl', 'spl', 'bpl', 'sil', 'dil', 'r8b', 'r9b', 'r10b', 'r11b', 'r12b', 'r13b', 'r14b', 'r15b'];
const R8 = ['al', 'cl', 'dl', 'bl', 'ah', 'ch', 'dh', 'bh'];
const SEG = ['', 'cs', 'ss', 'ds', 'fs', 'gs', 'es', '?'];
const SREG = ['es', 'cs', 'ss', 'ds', 'fs', 'gs', '?', '?'];
const SUFFIX: Record<number, string> = { 1: 'b', 2: 'w', 4: 'l', 8: 'q' };

/** Name of general register `n` at `size` bytes (REX presence selects spl..dil over ah..bh). */
export function gprName(n: number, size: number, rex: boolean): string {
  if (size === 8) return R64[n]!;
  if (size === 4) return R32[n]!;
  if (size === 2) return R16[n]!;
  return rex ? R8REX[n]! : R8[n]!;
}

/** Decodes and describes instructions with one core instance. */
export class X86Decoder {
  private readonly view: () => DataView;
  private readonly input: number;
  private readonly record: number;

  constructor(private readonly core: DecoderExports) {
    const addr = (g: WebAssembly.Global | number) => (typeof g === 'number' ? g : (g.value as number));
    this.input = addr(core.DECODE_INPUT);
    this.record = addr(core.DECODE_RECORD);
    let cached: DataView | null = null;
    this.view = () => {
      if (!cached || cached.buffer !== core.memory.buffer) cached = new DataView(core.memory.buffer);
      return cached;
    };
  }

  /** Decodes the instruction at `offset` of `code`; returns null when the bytes run out or exceed 15. */
  decodeFields(code: Uint8Array, offset = 0): DecodedFields | null {
    const n = Math.min(16, code.length - offset);
    if (n <= 0) return null;
    new Uint8Array(this.core.memory.buffer, this.input, 16).set(code.subarray(offset, offset + n));
    const len = this.core.decode(n);
    if (len <= 0) return null;
    const v = this.view();
    const r = this.record;
    const i32 = (o: number) => v.getInt32(r + o, true);
    const modrm = i32(28);
    return {
      length: len, form: i32(4), prefixes: i32(8), rex: i32(12), encoding: ENCODINGS[i32(16)]!, map: i32(20), opcode: i32(24),
      modrm: modrm & 0x100 ? modrm & 0xff : null, base: i32(32), index: i32(36), scale: i32(40), ripRelative: i32(44) !== 0,
      disp: v.getBigInt64(r + 48, true), dispOffset: i32(56), dispSize: i32(60), imm: v.getBigInt64(r + 64, true), imm2: v.getBigInt64(r + 72, true),
      immOffset: i32(80), immSize: i32(84), opSize: i32(88), addr32: i32(92) !== 0, reg: i32(96), rm: i32(100),
      vexMap: i32(104), vexPP: i32(108), vexW: i32(112), vexL: i32(116), vexV: i32(120), opReg: i32(124), segment: i32(128),
    };
  }

  /** Describes the instruction at `offset` of `code`, which sits at guest address `address`. */
  describe(code: Uint8Array, offset = 0, address = 0n): InstructionDescription | null {
    const f = this.decodeFields(code, offset);
    if (!f) return null;
    return describeFields(f, code.subarray(offset, offset + f.length), address);
  }
}

const MAP_NAME = ['1', '0F', '0F38', '0F3A'];
const PP_NAME = ['NP', '66', 'F3', 'F2'];
// (map, opcode, mandatory prefix) -> legacy form, for VEX/EVEX names.
const legacyByKey = new Map<string, number>();
FORM_TABLE.forEach((e, i) => {
  const key = `${e[3]}:${e[4]}:${e[6]}`;
  if (!legacyByKey.has(key)) legacyByKey.set(key, i + 1);
});

// VEX/EVEX forms whose names are not 'v' + the legacy name (SDM vol. 2, AVX-512 and BMI tables).
function vexSpecialName(f: DecodedFields): string | null {
  const map = f.vexMap, op = f.opcode, pp = PP_NAME[f.vexPP]!, w = f.vexW, evex = f.encoding === 'evex';
  const reg = f.modrm === null ? 0 : (f.modrm >> 3) & 7;
  const wl = w ? 'q' : 'l';
  if (map === 1) {
    if (evex && (op === 0x6f || op === 0x7f)) {
      if (pp === 'F3') return w ? 'vmovdqu64' : 'vmovdqu32';
      if (pp === 'F2') return w ? 'vmovdqu16' : 'vmovdqu8';
      if (pp === '66') return w ? 'vmovdqa64' : 'vmovdqa32';
    }
    if (evex && pp === '66') {
      const dq: Record<number, string> = { 0xef: 'vpxor', 0xdb: 'vpand', 0xeb: 'vpor', 0xdf: 'vpandn' };
      if (dq[op]) return dq[op] + (w ? 'q' : 'd');
    }
    if (op === 0x77 && f.encoding === 'vex') return f.vexL ? 'vzeroall' : 'vzeroupper';
    if (op === 0x6e || op === 0x7e) return pp === 'F3' ? 'vmovq' : w ? 'vmovq' : 'vmovd';
    if (op === 0xd6 && pp === '66') return 'vmovq';
    const k: Record<number, string> = { 0x90: 'kmov', 0x91: 'kmov', 0x92: 'kmov', 0x93: 'kmov', 0x98: 'kortest', 0x99: 'ktest', 0x41: 'kand', 0x42: 'kandn', 0x44: 'knot', 0x45: 'kor', 0x46: 'kxnor', 0x47: 'kxor', 0x4a: 'kadd', 0x4b: 'kunpck' };
    if (k[op] && f.encoding === 'vex') {
      if (op === 0x4b) return pp === '66' ? 'kunpckbw' : w ? 'kunpckdq' : 'kunpckwd';
      const t = pp === 'F2' ? (w ? 'q' : 'd') : pp === '66' ? (w ? 'd' : 'b') : w ? 'q' : 'w';
      if ((op === 0x92 || op === 0x93) && pp === 'F2') return 'kmov' + (w ? 'q' : 'd');
      return k[op] + t;
    }
  }
  if (map === 2) {
    const n: Record<number, string> = { 0x7a: 'vpbroadcastb', 0x7b: 'vpbroadcastw', 0x7c: w ? 'vpbroadcastq' : 'vpbroadcastd', 0x78: 'vpbroadcastb', 0x79: 'vpbroadcastw', 0x58: 'vpbroadcastd', 0x59: 'vpbroadcastq', 0x18: 'vbroadcastss', 0x19: 'vbroadcastsd' };
    if (n[op]) return n[op]!;
    if (op === 0x26) return (pp === 'F3' ? 'vptestnm' : 'vptestm') + (w ? 'w' : 'b');
    if (op === 0x27) return (pp === 'F3' ? 'vptestnm' : 'vptestm') + (w ? 'q' : 'd');
    if (op === 0xf7) return ({ NP: 'bextr', '66': 'shlx', F3: 'sarx', F2: 'shrx' } as Record<string, string>)[pp]! + wl;
    if (op === 0xf5) return ({ NP: 'bzhi', F3: 'pext', F2: 'pdep' } as Record<string, string>)[pp]! + wl;
    if (op === 0xf6 && pp === 'F2') return 'mulx' + wl;
    if (op === 0xf2 && pp === 'NP') return 'andn' + wl;
    if (op === 0xf3 && pp === 'NP') return (['', 'blsr', 'blsmsk', 'blsi'][reg] ?? '') + wl;
    if (evex && (op === 0x39 || op === 0x3d || op === 0x3b || op === 0x3f)) {
      const b = { 0x39: 'vpmins', 0x3d: 'vpmaxs', 0x3b: 'vpminu', 0x3f: 'vpmaxu' }[op]!;
      return b + (w ? 'q' : 'd');
    }
  }
  if (map === 3) {
    if (op === 0x25) return 'vpternlog' + (w ? 'q' : 'd');
    if (op === 0xf0 && pp === 'F2') return 'rorx' + wl;
    const cmp: Record<number, [string, string]> = { 0x3e: ['vpcmpu', w ? 'w' : 'b'], 0x3f: ['vpcmp', w ? 'w' : 'b'], 0x1e: ['vpcmpu', w ? 'q' : 'd'], 0x1f: ['vpcmp', w ? 'q' : 'd'] };
    if (evex && cmp[op]) {
      const pred = ['eq', 'lt', 'le', 'false', 'neq', 'nlt', 'nle', 'true'][Number(f.imm & 7n)]!;
      const [base, t] = cmp[op]!;
      return base === 'vpcmpu' ? `vpcmp${pred}u${t}` : `vpcmp${pred}${t}`;
    }
  }
  return null;
}

/**
 * Operands of a VEX-encoded form from its legacy form: vector registers widen
 * to ymm when VEX.L is set, and a non-destructive source (VEX.vvvv) comes
 * after the destination (SDM vol. 2, 2.3). Only for the VEX encoding; EVEX
 * operands (masks, compressed displacements) are not rendered.
 */
// Legacy forms whose VEX form has no VEX.vvvv source (vvvv must be 1111).
const VEX_TWO_OPERAND = /^(mov|pshuf[dhl]|pmovmskb|u?comis|cvt|ptest|pabs|pmov[sz]x|rcpps|rsqrtps|sqrtp|lddqu)/;

function vexOperands(legacyName: string, legacy: string, f: DecodedFields, address: bigint): string {
  const ops = legacy ? legacy.split(',') : [];
  const hasSource = f.vexV !== 0 || !VEX_TWO_OPERAND.test(legacyName);
  const vec = f.vexL ? 'ymm' : 'xmm';
  const text: string[] = [];
  ops.forEach((o, i) => {
    let t: string;
    if (o === 'V') t = `%${vec}${f.reg}`;
    else if ((o === 'W' || o === 'U') && f.modrm !== null && f.modrm >> 6 === 3) t = `%${vec}${f.rm}`;
    else t = operandText(o, f, address).text;
    if (t) text.push(t);
    if (i === 0 && o === 'V' && hasSource && ops.length >= 2) text.push(`%${vec}${f.vexV}`);
  });
  return text.reverse().join(', ');
}

function hexAddr(v: bigint): string {
  return '0x' + BigInt.asUintN(64, v).toString(16);
}

function signed(v: bigint, size: number): bigint {
  return BigInt.asIntN(size * 8, v);
}

/**
 * The spellings llvm gives segment-register moves and the 0F 00 group:
 * a register operand of `mov` to or from a segment register, `sldt` and `str`
 * takes the operand size (movl %ecx, %ds; strq %rax), a memory operand is a
 * word (movw (%rcx), %ds); `lldt` and `ltr` always carry the `w` suffix.
 */
function systemRegisterForms(name: string, mnemonic: string, operands: string, f: DecodedFields, isMem: boolean): [string, string] {
  const sized = name === 'movw' || name === 'mov?' || name === 'sldt' || name === 'str';
  if (name === 'lldt' || name === 'ltr') return [`${name}w`, operands];
  if (!sized || !(f.map === 0 ? f.opcode === 0x8c || f.opcode === 0x8e : f.opcode === 0x00)) return [mnemonic, operands];
  const base = name.replace(/[w?]$/, '');
  if (isMem) return [`${base}w`, operands];
  const size = SUFFIX[f.opSize] ? f.opSize : 4;
  const reg = `%${gprName(f.rm, size, f.rex !== 0)}`;
  const regText = operands.split(', ').map((o) => (/^%(?:[re]?[abcd]x|[re]?[sd]i|[re]?[sb]p|r\d+[dwb]?|[abcd][lh]|[sd]il|[sb]pl)$/.test(o) ? reg : o)).join(', ');
  return [`${base}${SUFFIX[size]}`, regText];
}

/** Builds the description of already decoded fields. */
export function describeFields(f: DecodedFields, bytes: Uint8Array, address: bigint): InstructionDescription {
  const classes = new Set<string>();
  let mnemonic: string;
  let operands = '';
  let target: bigint | undefined;
  let executed = false;
  const rex = f.rex !== 0;
  if (f.ripRelative) classes.add('rip_relative');
  if (f.encoding !== 'legacy') {
    classes.add('sse').add('avx');
    const special = vexSpecialName(f);
    if (special) mnemonic = special;
    else {
      const id = legacyByKey.get(`${MAP_NAME[f.vexMap] ?? '?'}:${f.opcode}:${PP_NAME[f.vexPP]}`);
      mnemonic = id ? 'v' + FORM_TABLE[id - 1]![0].replace('?', '') : '(bad)';
      if (!id) classes.add('invalid');
      else if (f.encoding === 'vex') operands = vexOperands(FORM_TABLE[id - 1]![0], FORM_TABLE[id - 1]![1], f, address);
    }
  } else if (f.form === 0) {
    mnemonic = '(bad)';
    classes.add('invalid');
  } else {
    const e = FORM_TABLE[f.form - 1]!;
    executed = e[5] === 1;
    for (const c of e[2].split(',')) if (c) classes.add(c);
    const ops = e[1] ? e[1].split(',') : [];
    let m = e[0];
    const isMem = f.modrm !== null && f.modrm >> 6 !== 3;
    if (m.startsWith('cvtsi2s')) m = m.replace('?', isMem ? SUFFIX[f.rex & 8 ? 8 : 4]! : '');
    m = m.replace('?', SUFFIX[f.opSize] ?? '');
    // REX.W selects the 64-bit image of FXSAVE/FXRSTOR (64-bit FPU IP and DP), which AT&T syntax spells with a 64.
    if ((m === 'fxsave' || m === 'fxrstor') && f.rex & 8) m += '64';
    mnemonic = m;
    const text: string[] = [];
    for (const o of ops) {
      const t = operandText(o, f, address);
      if (t.target !== undefined) target = t.target;
      if (t.text) text.push(t.text);
    }
    operands = text.reverse().join(', ');
    [mnemonic, operands] = systemRegisterForms(e[0], mnemonic, operands, f, isMem);
    // classes from the decoded form
    if (f.map === 0 && f.opcode === 0x55 && !rex && f.opSize === 8) classes.add('push_rbp');
    if (f.map === 0 && f.opcode === 0x5d && !rex && f.opSize === 8) classes.add('pop_rbp');
    if (f.map === 0 && (f.opcode === 0x8b || f.opcode === 0x89) && f.modrm !== null && (f.rex & 8) &&
        ((f.opcode === 0x89 && f.modrm === 0xe5) || (f.opcode === 0x8b && f.modrm === 0xec))) classes.add('mov_rsp_rbp');
    if (f.map === 0 && f.opcode === 0xff && ((f.modrm! >> 3) & 7) === 2) classes.add('call');
  }
  if (f.prefixes & PFX_LOCK) mnemonic = 'lock ' + mnemonic;
  if (classes.has('ret') && f.prefixes & PFX_F3) mnemonic = 'rep ' + mnemonic;
  if (classes.has('string') && f.prefixes & (PFX_F2 | PFX_F3)) {
    const cmpLike = f.opcode === 0xa6 || f.opcode === 0xa7 || f.opcode === 0xae || f.opcode === 0xaf;
    mnemonic = (f.prefixes & PFX_F2 ? 'repne ' : cmpLike ? 'rep ' : 'rep ') + mnemonic;
  }
  if (classes.has('call') || classes.has('jmp') || classes.has('jcc') || classes.has('loop') || classes.has('ret')) {
    if (!classes.has('indirect') && target === undefined && !classes.has('ret')) classes.add('indirect');
  }
  return { address, length: f.length, bytes: bytes.slice(0, f.length), mnemonic, operands, classes, target, executed, fields: f };
}

function memText(f: DecodedFields, address: bigint): string {
  const seg = f.segment ? `%${SEG[f.segment]}:` : '';
  const asz = f.addr32 ? 4 : 8;
  const disp = f.disp;
  if (f.ripRelative) return `${seg}${disp}(%${f.addr32 ? 'eip' : 'rip'})`;
  const base = f.base >= 0 ? `%${gprName(f.base, asz, true)}` : '';
  const idx = f.index >= 0 ? `,%${gprName(f.index, asz, true)}` : '';
  const scale = f.index >= 0 && f.scale ? `,${1 << f.scale}` : '';
  if (!base && !idx) return `${seg}${disp}`;
  if (!base && f.index >= 0 && !scale) return `${seg}${disp}(${idx},1)`;
  void address;
  return `${seg}${disp !== 0n ? disp : ''}(${base}${idx}${scale})`;
}

function operandText(kind: string, f: DecodedFields, address: bigint): { text: string; target?: bigint } {
  const rex = f.rex !== 0;
  const isMem = f.modrm !== null && f.modrm >> 6 !== 3;
  const os = f.opSize;
  const star = kind.startsWith('*');
  const k = star ? kind.slice(1) : kind;
  const pre = star ? '*' : '';
  const sizeOf = (c: string): number => (c === 'b' ? 1 : c === 'w' ? 2 : c === 'd' ? 4 : c === 'q' ? 8 : c === 'y' ? (f.rex & 8 ? 8 : 4) : os);
  const c0 = k[0];
  if (c0 === 'E' || c0 === 'M' || c0 === 'R' || (c0 === 'W' || c0 === 'Q' || c0 === 'U' || c0 === 'N')) {
    if (isMem && c0 !== 'R' && c0 !== 'U' && c0 !== 'N') return { text: pre + memText(f, address) };
    if (c0 === 'W' || c0 === 'U') return { text: `%xmm${f.rm}` };
    if (c0 === 'Q' || c0 === 'N') return { text: `%mm${f.rm & 7}` };
    return { text: `${pre}%${gprName(f.rm, c0 === 'R' && k.length === 1 ? 8 : sizeOf(k[1] ?? 'v'), rex)}` };
  }
  if (c0 === 'G') return { text: `%${gprName(f.reg, sizeOf(k[1] ?? 'v'), rex)}` };
  if (c0 === 'V') return { text: `%xmm${f.reg}` };
  if (c0 === 'P') return { text: `%mm${f.reg & 7}` };
  if (c0 === 'Z') return { text: `%${gprName(f.opReg, k[1] === 'b' ? 1 : os, rex)}` };
  if (c0 === 'I') {
    // llvm-objdump: sign-extended imm8 and 64-bit operations print signed, 16/32-bit immediates unsigned
    if (k === 'Ibs') return { text: `$${signed(f.imm, os)}` };
    if (k === 'Iv' || k === 'Iz') return { text: `$${os === 8 ? signed(f.imm, 8) : BigInt.asUintN(os * 8, f.imm)}` };
    if (k === 'Iw' && f.immSize === 3) return { text: `$${f.imm}` };
    if (k === 'Ib' && f.immSize === 3) return { text: `$${f.imm2}` };
    if (k === 'Ib') return { text: `$${os === 1 ? signed(f.imm, 1) : BigInt.asUintN(8, f.imm)}` };
    return { text: `$${f.imm}` };
  }
  if (c0 === 'J') {
    const t = BigInt.asUintN(64, address + BigInt(f.length) + f.imm);
    return { text: hexAddr(t), target: t };
  }
  if (c0 === 'O') return { text: `${f.segment ? `%${SEG[f.segment]}:` : ''}${BigInt.asUintN(64, f.imm)}` };
  if (k === 'AL') return { text: '%al' };
  if (k === 'CL') return { text: '%cl' };
  if (k === 'DX') return { text: '%dx' };
  if (k === 'AX') return { text: '%ax' };
  if (k === 'eAX') return { text: '%eax' };
  if (k === 'rAX') return { text: `%${gprName(0, os, rex)}` };
  if (k === 'Xb' || k === 'Xv') return { text: `${f.segment ? `%${SEG[f.segment]}:` : ''}(%rsi)` };
  if (k === 'Yb' || k === 'Yv') return { text: '%es:(%rdi)' };
  if (k === '1') return { text: '' };
  if (k === 'Sw') return { text: `%${SREG[(f.reg & 7)]}` };
  if (k === 'Cd') return { text: `%cr${f.reg}` };
  if (k === 'Dd') return { text: `%dr${f.reg}` };
  if (k === 'ST') return { text: `%st(${f.rm & 7})` };
  if (k === 'FS' || k === 'GS') return { text: `%${k.toLowerCase()}` };
  if (k === 'XMM0') return { text: '%xmm0' };
  return { text: '' };
}
