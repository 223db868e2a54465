#!/usr/bin/env node
// Differential test vectors: random instructions generated from templates of
// the executed opcode forms, assembled by llvm-mc, run natively on the host
// CPU by scripts/native-harness.c (built with clang), and recorded with the
// final registers, flags (with the mask of flags the SDM defines) and memory
// into test/vectors/exec.bin.gz. The vector test replays them on the core.
//
// Usage: gen-exec-vectors.mjs [COUNT] [FIRST_SEED] [OUT]
//   OUT defaults to test/vectors/exec.bin.gz; CI writes a fresh batch elsewhere.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { initialState, prng, encodeCases, DATA_SIZE, DATA_ADDR, FPU_LAYOUT, FPU_TABLES, FXSAVE_IMAGE, KINDS } from '../test/exec-case.mjs';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const COUNT = Number(process.argv[2] ?? 24000);
const FIRST = Number(process.argv[3] ?? 1);
const OUT = process.argv[4] ?? join(pkg, 'test/vectors/exec.bin.gz');

const CF = 1, PF = 4, AF = 16, ZF = 64, SF = 128, OF = 2048;
const ALL = CF | PF | AF | ZF | SF | OF;

const R = {
  b: ['al', 'cl', 'dl', 'bl', 'sil', 'dil', 'bpl', 'r8b', 'r9b', 'r10b', 'r11b', 'r12b', 'r13b', 'r14b', 'r15b'],
  w: ['ax', 'cx', 'dx', 'bx', 'si', 'di', 'bp', 'r8w', 'r9w', 'r10w', 'r11w', 'r12w', 'r13w', 'r14w', 'r15w'],
  l: ['eax', 'ecx', 'edx', 'ebx', 'esi', 'edi', 'ebp', 'r8d', 'r9d', 'r10d', 'r11d', 'r12d', 'r13d', 'r14d', 'r15d'],
  q: ['rax', 'rcx', 'rdx', 'rbx', 'rsi', 'rdi', 'rbp', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15'],
};
const S = ['b', 'w', 'l', 'q'];
const CC = ['o', 'no', 'b', 'ae', 'e', 'ne', 'be', 'a', 's', 'ns', 'p', 'np', 'l', 'ge', 'le', 'g'];

// Each template: (rand) => { asm: string[], mask: defined flags after it, kind? }
// `rnd(n)` picks 0..n-1.
function templates() {
  const t = [];
  const reg = (rnd, s) => {
    let list = R[s];
    return '%' + list[rnd(list.length)];
  };
  // a register that does not need REX, for forms mixing ah..dh
  const noRexByte = (rnd) => '%' + ['al', 'cl', 'dl', 'bl', 'ah', 'ch', 'dh', 'bh'][rnd(8)];
  const mem = (rnd) => `${rnd(32) * 8 + rnd(8)}(%rbx)`;
  const notCx = (rnd, s) => { let x; do x = reg(rnd, s); while (/^%(cl|cx|ecx|rcx)$/.test(x)); return x; };
  const imm = (rnd, s) => {
    if (s === 'q') return `$${rnd(0x100000000) - 0x80000000}`;
    const v = [0, 1, -1, 0x7f, -128, 0x1234, -0x8000, 0x7fffffff, -0x80000000][rnd(9)];
    const lim = s === 'b' ? 0xff : s === 'w' ? 0xffff : 0xffffffff;
    return `$${rnd(3) === 0 ? v & lim : rnd(lim + 1)}`.replace('$-0', '$0');
  };
  const imm8 = (rnd) => `$${rnd(256)}`;
  const add = (w, f) => t.push({ w, f });
  const operandPair = (rnd, s) => {
    const k = rnd(3);
    if (s === 'b' && rnd(2)) { const a = noRexByte(rnd), b = noRexByte(rnd); return k === 2 ? [mem(rnd), a] : [a, k === 1 ? mem(rnd) : b]; }
    if (k === 0) return [reg(rnd, s), reg(rnd, s)];
    if (k === 1) return [mem(rnd), reg(rnd, s)];
    return [reg(rnd, s), mem(rnd)];
  };
  for (const op of ['add', 'or', 'adc', 'sbb', 'and', 'sub', 'xor', 'cmp', 'test']) {
    const logic = ['or', 'and', 'xor', 'test'].includes(op);
    const m = logic ? ALL & ~AF : ALL;
    add(6, (rnd) => { const s = S[rnd(4)]; const [a, b] = operandPair(rnd, s); return { asm: [`${op}${s} ${a}, ${b}`], mask: m }; });
    add(4, (rnd) => { const s = S[rnd(4)]; const d = rnd(2) ? reg(rnd, s) : mem(rnd); return { asm: [`${op}${s} ${imm(rnd, s)}, ${d}`], mask: m }; });
    add(1, (rnd) => { const s = S[rnd(4)]; const a = { b: '%al', w: '%ax', l: '%eax', q: '%rax' }[s]; return { asm: [`${op}${s} ${imm(rnd, s)}, ${a}`], mask: m }; });
    if (op !== 'test') add(2, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`${op}${s} $${rnd(256) - 128}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: m }; });
  }
  add(6, (rnd) => { const s = S[rnd(4)]; const [a, b] = operandPair(rnd, s); return { asm: [`mov${s} ${a}, ${b}`], mask: ALL }; });
  add(2, (rnd) => { const s = S[rnd(4)]; return { asm: [`mov${s} ${imm(rnd, s)}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: ALL }; });
  add(1, (rnd) => ({ asm: [`movabsq $${BigInt.asIntN(64, (BigInt(rnd(1 << 30)) << 34n) ^ BigInt(rnd(1 << 30)))}, ${reg(rnd, 'q')}`], mask: ALL }));
  add(3, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`lea${s} ${rnd(512) - 256}(%rbx,${reg(rnd, 'q').replace('%rsp', '%rax')},${1 << rnd(4)}), ${reg(rnd, s)}`], mask: ALL }; });
  add(1, (rnd) => ({ asm: [`leaq ${rnd(1000)}(%rip), ${reg(rnd, 'q')}`], mask: ALL }));
  add(3, (rnd) => { const ss = ['bw', 'bl', 'bq', 'wl', 'wq'][rnd(5)]; const o = rnd(2) ? reg(rnd, ss[0]) : mem(rnd); return { asm: [`mov${rnd(2) ? 'z' : 's'}${ss} ${o}, ${reg(rnd, ss[1])}`.replace(/movz(bq|wq)/, 'movz$1')], mask: ALL }; });
  add(1, (rnd) => ({ asm: [`movslq ${rnd(2) ? reg(rnd, 'l') : mem(rnd)}, ${reg(rnd, 'q')}`], mask: ALL }));
  add(2, (rnd) => { const s = rnd(4) ? 'q' : 'w'; return { asm: [`push${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: ALL }; });
  add(1, (rnd) => ({ asm: [`pushq $${rnd(65536) - 32768}`], mask: ALL }));
  add(2, (rnd) => { const s = rnd(4) ? 'q' : 'w'; return { asm: [`pop${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: ALL }; });
  add(3, (rnd) => { const s = S[rnd(4)]; const [a, b] = operandPair(rnd, s); return { asm: [`xchg${s} ${b.includes('(') ? a : b}, ${b.includes('(') ? b : a}`], mask: ALL }; });
  add(3, (rnd) => { const s = S[rnd(4)]; return { asm: [`${rnd(3) === 0 ? 'lock ' : ''}cmpxchg${s} ${reg(rnd, s)}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}`.replace(/^lock (cmpxchg\w) (%\w+), %/, '$1 $2, %')], mask: ALL }; });
  add(2, (rnd) => { const s = S[rnd(4)]; return { asm: [`xadd${s} ${reg(rnd, s)}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: ALL }; });
  for (const op of ['not', 'neg', 'inc', 'dec']) add(3, (rnd) => { const s = S[rnd(4)]; return { asm: [`${op}${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: ALL }; });
  for (const op of ['mul', 'imul']) add(4, (rnd) => { const s = S[rnd(4)]; return { asm: [`${op}${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: CF | OF }; });
  for (const op of ['div', 'idiv']) add(4, (rnd) => { const s = S[rnd(4)]; return { asm: [`${op}${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: 0 }; });
  add(3, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`imul${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${reg(rnd, s)}`], mask: CF | OF }; });
  add(3, (rnd) => { const s = 'wlq'[rnd(3)]; const i = rnd(2) ? `$${rnd(256) - 128}` : imm(rnd, s); return { asm: [`imul${s} ${i}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${reg(rnd, s)}`], mask: CF | OF }; });
  for (const op of ['rol', 'ror', 'rcl', 'rcr', 'shl', 'shr', 'sar']) {
    add(3, (rnd) => {
      const s = S[rnd(4)];
      const k = rnd(3);
      const bits = s === 'q' ? 64 : 32;
      const cnt = k === 0 ? 1 : k === 1 ? rnd(bits + 8) : -1;
      const src = k === 0 ? '' : k === 1 ? `$${cnt}, ` : '%cl, ';
      const d = rnd(2) ? notCx(rnd, s) : mem(rnd);
      // OF defined for 1-bit shifts only; AF undefined for shifts
      let mask = op.startsWith('r') ? CF | OF : ALL & ~AF;
      const masked = cnt >= 0 ? cnt & (bits - 1) : -1;
      if (masked !== 1) mask &= ~OF;
      if ((op === 'rcl' || op === 'rcr') && (s === 'b' || s === 'w')) mask &= ~OF;
      return { asm: [`${op}${s} ${src}${d}`], mask };
    });
  }
  for (const op of ['shld', 'shrd']) add(3, (rnd) => {
    const s = 'lq'[rnd(2)];
    const bits = s === 'q' ? 64 : 32;
    const cnt = rnd(bits);
    const useCl = rnd(2) === 1;
    let mask = ALL & ~AF;
    mask &= ~OF; // defined only for count 1
    if (!useCl && cnt === 1) mask |= OF;
    return { asm: [`${op}${s} ${useCl ? '%cl' : `$${cnt}`}, ${notCx(rnd, s)}, ${rnd(2) ? notCx(rnd, s) : mem(rnd)}`], mask };
  });
  for (const op of ['bt', 'bts', 'btr', 'btc']) {
    add(2, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`${op}${s} $${rnd(256)}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: CF }; });
    add(2, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`${op}${s} ${reg(rnd, s)}, ${reg(rnd, s)}`], mask: CF }; });
  }
  for (const op of ['bsf', 'bsr']) add(2, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`${op}${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${reg(rnd, s)}`], mask: ZF }; });
  for (const op of ['tzcnt', 'lzcnt']) add(2, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`${op}${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${reg(rnd, s)}`], mask: CF | ZF }; });
  add(2, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`popcnt${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${reg(rnd, s)}`], mask: ALL }; });
  add(1, (rnd) => { const s = 'lq'[rnd(2)]; return { asm: [`bswap${s} ${reg(rnd, s)}`], mask: ALL }; });
  add(4, (rnd) => { const s = 'wlq'[rnd(3)]; return { asm: [`cmov${CC[rnd(16)]}${s} ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${reg(rnd, s)}`], mask: ALL }; });
  add(3, (rnd) => ({ asm: [`set${CC[rnd(16)]} ${rnd(2) ? reg(rnd, 'b') : mem(rnd)}`], mask: ALL }));
  // control transfers are given as bytes (llvm-mc leaves label fixups unresolved in text mode)
  add(3, (rnd) => ({ bytes: [0x70 + rnd(16), 0x02, 0xff, 0xc0, 0x90], mask: ALL }));
  add(1, (rnd) => ({ bytes: [0x0f, 0x80 + rnd(16), 0x02, 0, 0, 0, 0xff, 0xc0, 0x90], mask: ALL }));
  for (const op of ['cbtw', 'cwtl', 'cltq', 'cwtd', 'cltd', 'cqto', 'clc', 'stc', 'cmc', 'lahf', 'sahf']) add(1, () => ({ asm: [op], mask: ALL }));
  add(1, () => ({ bytes: [0xe8, 0, 0, 0, 0, 0x58], mask: ALL }));
  add(1, (rnd) => ({ asm: [`movq %rsp, %rbp`, `subq $${rnd(64) * 8}, %rsp`, `leave`], mask: ALL }));
  add(1, () => ({ bytes: [0x48, 0x8d, 0x05, 4, 0, 0, 0, 0x50, 0xc3, 0xff, 0xc1, 0x90], mask: ALL }));
  add(1, () => ({ bytes: [0xe2, 0x02, 0xff, 0xc0, 0x90], mask: ALL }));
  add(1, () => ({ bytes: [0xeb, 0x02, 0xff, 0xc0, 0x90], mask: ALL }));
  add(1, (rnd) => ({ asm: [`enter $${rnd(64) * 8}, $0`], mask: ALL }));
  add(1, () => ({ asm: ['pushfq', 'popq %rax'], mask: ALL }));
  for (const [op, cmp] of [['movs', false], ['stos', false], ['lods', false], ['cmps', true], ['scas', true]]) {
    add(3, (rnd) => {
      const s = S[rnd(4)];
      const rep = op === 'lods' ? (rnd(2) ? 'rep ' : '') : cmp ? ['', 'repe ', 'repne '][rnd(3)] : ['', 'rep '][rnd(2)];
      return { asm: [`${rep}${op}${s}`], mask: cmp ? ALL : ALL, kind: 'string' };
    });
  }
  // SSE/SSE2: inputs from the data block or general registers, results stored back
  const x = (rnd) => `%xmm${rnd(16)}`;
  const packed = ['pxor', 'por', 'pand', 'pandn', 'paddb', 'paddw', 'paddd', 'paddq', 'psubb', 'psubw', 'psubd', 'psubq',
    'pcmpeqb', 'pcmpeqw', 'pcmpeqd', 'pcmpgtb', 'pcmpgtw', 'pcmpgtd', 'pminub', 'pmaxub', 'punpcklbw', 'punpckhbw',
    'punpcklwd', 'punpckhwd', 'punpckldq', 'punpckhdq', 'punpcklqdq', 'punpckhqdq', 'xorps', 'andps', 'orps', 'andnps', 'xorpd', 'andpd', 'unpcklpd', 'unpckhpd',
    'packsswb', 'packuswb', 'packssdw', 'paddsb', 'paddsw', 'paddusb', 'paddusw', 'psubsb', 'psubsw', 'psubusb', 'psubusw',
    'pavgb', 'pavgw', 'pminsw', 'pmaxsw', 'pmullw', 'pmulhw', 'pmulhuw', 'pmuludq', 'pmaddwd', 'psadbw'];
  for (const op of packed) add(1, (rnd) => {
    const a = x(rnd), b = x(rnd);
    const same = rnd(4) === 0;
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movups ${mem(rnd)}, ${b}`, `${op} ${same ? a : b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  for (const op of ['pshufd', 'pshufhw', 'pshuflw', 'shufps', 'shufpd']) add(1, (rnd) => {
    const a = x(rnd), b = x(rnd);
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movupd ${mem(rnd)}, ${b}`, `${op} $${rnd(256)}, ${b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  for (const op of ['psrldq', 'pslldq', 'psrlw', 'psllw', 'psraw', 'psrld', 'pslld', 'psrad', 'psrlq', 'psllq']) add(1, (rnd) => {
    const a = x(rnd);
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op} $${rnd(4) === 0 ? rnd(256) : rnd(20)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  add(2, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `pmovmskb ${a}, ${reg(rnd, 'l')}`], mask: ALL }; });
  // shifts by the count in an xmm register: counts around and past the element width
  const notBx = (rnd, s) => { let r; do r = reg(rnd, s); while (/^%(ebx|rbx)$/.test(r)); return r; };
  for (const op of ['psrlw', 'psllw', 'psraw', 'psrld', 'pslld', 'psrad', 'psrlq', 'psllq']) add(1, (rnd) => {
    const a = x(rnd), b = x(rnd), r = notBx(rnd, 'q');
    const count = rnd(4) === 0 ? rnd(0x10000) : rnd(70);
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movq $${count}, ${r}`, `movq ${r}, ${b}`, `${op} ${b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  add(1, (rnd) => {
    const a = x(rnd);
    const src = rnd(2) ? notBx(rnd, 'l') : `${rnd(32) * 8 + rnd(8)}(%rbx)`;
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `pinsrw $${rnd(256)}, ${src}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  add(1, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `pextrw $${rnd(256)}, ${a}, ${reg(rnd, 'l')}`], mask: ALL }; });
  // packed floating point and conversions: random bit patterns (NaNs, denormals, infinities included)
  for (const op of ['addps', 'addpd', 'subps', 'subpd', 'mulps', 'mulpd', 'divps', 'divpd', 'minps', 'minpd', 'maxps', 'maxpd',
    'sqrtps', 'sqrtpd', 'unpcklps', 'unpckhps', 'cvtps2pd', 'cvtpd2ps', 'cvtdq2ps', 'cvtps2dq', 'cvttps2dq', 'cvtpd2dq', 'cvttpd2dq', 'cvtdq2pd',
    'movhlps', 'movlhps']) add(1, (rnd) => {
    const a = x(rnd), b = x(rnd);
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movdqu ${mem(rnd)}, ${b}`, `${op} ${b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  for (const op of ['cmpps', 'cmppd', 'cmpss', 'cmpsd']) add(1, (rnd) => {
    const a = x(rnd), b = x(rnd);
    const same = rnd(4) === 0;
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movdqu ${mem(rnd)}, ${b}`, `${op} $${rnd(8)}, ${same ? a : b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  for (const op of ['movlps', 'movhps']) {
    add(1, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op} ${mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
    add(1, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op} ${a}, ${mem(rnd)}`], mask: ALL }; });
  }
  for (const op of ['movmskps', 'movmskpd']) add(1, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op} ${a}, ${reg(rnd, 'l')}`], mask: ALL }; });
  add(2, (rnd) => { const a = x(rnd); const s = 'lq'[rnd(2)]; return { asm: [`mov${s === 'q' ? 'q' : 'd'} ${rnd(2) ? reg(rnd, s) : mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
  add(2, (rnd) => { const a = x(rnd); const s = 'lq'[rnd(2)]; return { asm: [`movdqu ${mem(rnd)}, ${a}`, `mov${s === 'q' ? 'q' : 'd'} ${a}, ${rnd(2) ? reg(rnd, s) : mem(rnd)}`], mask: ALL }; });
  for (const t of ['ss', 'sd']) {
    add(2, (rnd) => { const a = x(rnd), b = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movdqu ${mem(rnd)}, ${b}`, rnd(2) ? `mov${t} ${mem(rnd)}, ${a}` : `mov${t} ${b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`, `mov${t} ${b}, ${mem(rnd)}`], mask: ALL }; });
    for (const op of ['add', 'sub', 'mul', 'div', 'min', 'max', 'sqrt']) {
      add(2, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op}${t} ${mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
      add(2, (rnd) => {
        const a = x(rnd), b = x(rnd);
        const cv = `cvtsi2${t}`;
        return { asm: [`xorps ${a}, ${a}`, `${cv}q ${reg(rnd, 'q')}, ${a}`, `xorps ${b}, ${b}`, `${cv}l ${reg(rnd, 'l')}, ${b}`, `${op}${t} ${b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
      });
    }
    for (const op of ['ucomi', 'comi']) add(3, (rnd) => {
      const a = x(rnd), b = x(rnd);
      return { asm: [`movdqu ${mem(rnd)}, ${a}`, rnd(2) ? `movdqu ${mem(rnd)}, ${b}` : `movdqa ${a}, ${b}`, `${op}${t} ${b}, ${a}`], mask: ALL };
    });
    for (const op of ['cvtt', 'cvt']) add(2, (rnd) => {
      const s = 'lq'[rnd(2)];
      return { asm: [`${op}${t}2si ${mem(rnd)}, ${reg(rnd, s)}`], mask: ALL };
    });
  }
  add(2, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `cvtss2sd ${mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
  add(2, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `cvtsd2ss ${mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
  sse3to42Templates(add, { x, mem, reg, notBx });
  mxcsrTemplates(add);
  x87Templates(add);
  mmxTemplates(add);
  return t;
}

// ---- SSE3, SSSE3, SSE4.1, SSE4.2 --------------------------------------------------------------
// Operands loaded from the data block (unaligned movdqu), results stored back;
// floating-point ones see random bit patterns (NaNs, denormals, infinities).
function sse3to42Templates(add, { x, mem, reg, notBx }) {
  const twoXmm = (op, imm) => (rnd) => {
    const a = x(rnd), b = x(rnd);
    const same = rnd(6) === 0;
    return { asm: [`movdqu ${mem(rnd)}, ${a}`, `movdqu ${mem(rnd)}, ${b}`, `${op} ${imm ? `$${imm(rnd)}, ` : ''}${same ? a : b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  };
  const binary = ['addsubpd', 'addsubps', 'haddpd', 'haddps', 'hsubpd', 'hsubps', 'movsldup', 'movshdup', 'movddup',
    'pshufb', 'phaddw', 'phaddd', 'phaddsw', 'phsubw', 'phsubd', 'phsubsw', 'pmaddubsw', 'pmulhrsw', 'psignb', 'psignw', 'psignd', 'pabsb', 'pabsw', 'pabsd',
    'pmovsxbw', 'pmovsxbd', 'pmovsxbq', 'pmovsxwd', 'pmovsxwq', 'pmovsxdq', 'pmovzxbw', 'pmovzxbd', 'pmovzxbq', 'pmovzxwd', 'pmovzxwq', 'pmovzxdq',
    'pmuldq', 'pcmpeqq', 'packusdw', 'pminsb', 'pminsd', 'pminuw', 'pminud', 'pmaxsb', 'pmaxsd', 'pmaxuw', 'pmaxud', 'pmulld', 'phminposuw', 'pcmpgtq'];
  for (const op of binary) add(1, twoXmm(op));
  for (const op of ['pmovsxbw', 'pmovzxbq', 'pmovsxwq', 'pmovzxdq', 'movddup']) add(1, (rnd) => { const a = x(rnd); return { asm: [`${op} ${mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
  add(1, (rnd) => { const a = x(rnd); return { asm: [`lddqu ${mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
  const imm8 = (rnd) => rnd(256);
  for (const op of ['palignr', 'pblendw', 'blendps', 'blendpd', 'mpsadbw', 'dpps', 'dppd', 'insertps']) add(1, twoXmm(op, op === 'palignr' ? (rnd) => (rnd(2) ? rnd(40) : rnd(256)) : imm8));
  for (const op of ['roundps', 'roundpd', 'roundss', 'roundsd']) add(1, twoXmm(op, (rnd) => rnd(16)));
  for (const op of ['pblendvb', 'blendvps', 'blendvpd']) add(1, (rnd) => {
    const a = `%xmm${1 + rnd(15)}`, b = `%xmm${1 + rnd(15)}`;
    return { asm: [`movdqu ${mem(rnd)}, %xmm0`, `movdqu ${mem(rnd)}, ${a}`, `movdqu ${mem(rnd)}, ${b}`, `${op} %xmm0, ${b}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL };
  });
  add(2, (rnd) => { const a = x(rnd), b = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, rnd(3) ? `movdqu ${mem(rnd)}, ${b}` : `movdqa ${a}, ${b}`, `ptest ${b}, ${a}`], mask: ALL }; });
  // element inserts and extracts, register and memory forms
  for (const [op, s, n] of [['pextrb', 'l', 16], ['pextrw', 'l', 8], ['pextrd', 'l', 4], ['pextrq', 'q', 2], ['extractps', 'l', 4]]) {
    add(1, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op} $${rnd(n * 2)}, ${a}, ${rnd(2) ? notBx(rnd, s) : mem(rnd)}`], mask: ALL }; });
  }
  for (const [op, s, n] of [['pinsrb', 'l', 16], ['pinsrd', 'l', 4], ['pinsrq', 'q', 2]]) {
    add(1, (rnd) => { const a = x(rnd); return { asm: [`movdqu ${mem(rnd)}, ${a}`, `${op} $${rnd(n * 2)}, ${rnd(2) ? notBx(rnd, s) : mem(rnd)}, ${a}`, `movdqu ${a}, ${mem(rnd)}`], mask: ALL }; });
  }
  // string compares: every format, aggregation, polarity and output selection; explicit lengths in rax and rdx
  for (const op of ['pcmpestri', 'pcmpestrm', 'pcmpistri', 'pcmpistrm']) add(4, (rnd) => {
    const a = x(rnd), b = x(rnd);
    const lengths = op.includes('estr') && rnd(2) ? [`movq $${rnd(40) - 20}, %rax`, `movq $${rnd(40) - 20}, %rdx`] : [];
    // short strings: some elements zero now and then
    const pokes = rnd(2) ? [`movb $0, ${mem(rnd)}`] : [];
    return { asm: [...pokes, `movdqu ${mem(rnd)}, ${a}`, `movdqu ${mem(rnd)}, ${b}`, ...lengths, `${op} $${rnd(128)}, ${rnd(4) ? b : mem(rnd)}, ${a}`, `movdqu %xmm0, ${mem(rnd)}`], mask: ALL };
  });
  // CRC32C of bytes, words, doublewords and quadwords
  add(3, (rnd) => {
    // source size b/w/l/q; a byte source may accumulate into a 64-bit register too
    const size = 'bwlq'[rnd(4)];
    const src = rnd(2) ? reg(rnd, size) : mem(rnd);
    const dst = size === 'q' || (size === 'b' && rnd(2)) ? reg(rnd, 'q') : reg(rnd, 'l');
    const suffix = size;
    return { asm: [`crc32${suffix} ${src}, ${dst}`], mask: ALL };
  });
}

// ---- MMX ------------------------------------------------------------------------------------
// MMX registers are the x87 registers' significands: these cases end with the
// FXSAVE image as the x87 ones do, so TOP, the tags and the exponents written
// all ones are compared with the registers.
function mmxTemplates(add) {
  const mm = (rnd) => `%mm${rnd(8)}`;
  const Q = (rnd) => `${FPU_LAYOUT.x80 + rnd(64) * 8}(%rbx)`;
  const OUT = (rnd) => `${-0x300 + rnd(16) * 8}(%rbx)`;
  const binary = ['paddb', 'paddw', 'paddd', 'paddq', 'psubb', 'psubw', 'psubd', 'psubq', 'paddsb', 'paddsw', 'paddusb', 'paddusw',
    'psubsb', 'psubsw', 'psubusb', 'psubusw', 'pcmpeqb', 'pcmpeqw', 'pcmpeqd', 'pcmpgtb', 'pcmpgtw', 'pcmpgtd', 'pand', 'pandn', 'por', 'pxor',
    'pmullw', 'pmulhw', 'pmulhuw', 'pmaddwd', 'pmuludq', 'pavgb', 'pavgw', 'pminub', 'pmaxub', 'pminsw', 'pmaxsw', 'psadbw',
    'punpcklbw', 'punpcklwd', 'punpckldq', 'punpckhbw', 'punpckhwd', 'punpckhdq', 'packsswb', 'packuswb', 'packssdw',
    'psllw', 'pslld', 'psllq', 'psrlw', 'psrld', 'psrlq', 'psraw', 'psrad',
    'pshufb', 'phaddw', 'phaddd', 'phaddsw', 'phsubw', 'phsubd', 'phsubsw', 'pmaddubsw', 'pmulhrsw', 'psignb', 'psignw', 'psignd', 'pabsb', 'pabsw', 'pabsd'];
  const op = (rnd) => {
    const k = rnd(10);
    const a = mm(rnd), b = mm(rnd);
    if (k < 6) return [`${binary[rnd(binary.length)]} ${rnd(3) ? b : Q(rnd)}, ${a}`];
    if (k === 6) return [`${['psllw', 'pslld', 'psllq', 'psrlw', 'psrld', 'psrlq', 'psraw', 'psrad'][rnd(8)]} $${rnd(4) ? rnd(70) : rnd(256)}, ${a}`];
    if (k === 7) return [[`pshufw $${rnd(256)}, ${rnd(2) ? b : Q(rnd)}, ${a}`, `palignr $${rnd(20)}, ${b}, ${a}`, `pinsrw $${rnd(8)}, ${rnd(2) ? '%ecx' : Q(rnd)}, ${a}`, `pextrw $${rnd(8)}, ${b}, %edx`][rnd(4)]];
    if (k === 8) return [[`movd ${a}, %esi`, `movq ${a}, %rsi`, `movd %edi, ${a}`, `movq %rdi, ${a}`, `movd ${a}, ${OUT(rnd)}`, `movq ${b}, ${a}`, `pmovmskb ${a}, %eax`, `movntq ${a}, ${OUT(rnd)}`][rnd(8)]];
    return [['emms', `movq2dq ${a}, %xmm${rnd(16)}`, `movdq2q %xmm${rnd(16)}, ${a}`][rnd(3)]];
  };
  add(12, (rnd) => {
    const asm = [];
    for (let i = 1 + rnd(3); i > 0; i--) asm.push(`movq ${Q(rnd)}, ${mm(rnd)}`);
    if (rnd(3) === 0) asm.push(`movdqu ${Q(rnd)}, %xmm${rnd(16)}`);
    for (let i = 1 + rnd(3); i > 0; i--) asm.push(...op(rnd));
    asm.push(`movq ${mm(rnd)}, ${OUT(rnd)}`);
    if (rnd(4) === 0) asm.push('emms');
    return { asm: [...asm, ...FPU_EPILOGUE], mask: ALL, kind: 'fpu' };
  });
  // conversions between MMX and XMM registers: without the FXSAVE image (
  // this core does not record MXCSR's exception flags), results stored
  add(3, (rnd) => {
    const a = mm(rnd), x = `%xmm${rnd(16)}`;
    const conv = [`cvtpi2ps ${rnd(2) ? a : Q(rnd)}, ${x}`, `cvtpi2pd ${rnd(2) ? a : Q(rnd)}, ${x}`, `cvtps2pi ${rnd(2) ? x : Q(rnd)}, ${a}`,
      `cvttps2pi ${rnd(2) ? x : Q(rnd)}, ${a}`, `cvtpd2pi ${x}, ${a}`, `cvttpd2pi ${x}, ${a}`][rnd(6)];
    return { asm: [`movq ${Q(rnd)}, ${a}`, `movdqu ${Q(rnd)}, ${x}`, conv, `movq ${a}, ${OUT(rnd)}`, `movdqu ${x}, ${OUT(rnd)}`], mask: ALL, kind: 'fpu' };
  });
  // MASKMOVQ / MASKMOVDQU store through rdi: pointed into the results area
  add(1, (rnd) => ({ asm: [`leaq ${-0x300 + rnd(64)}(%rbx), %rdi`, `movq ${Q(rnd)}, %mm1`, `movq ${Q(rnd)}, %mm2`, 'maskmovq %mm2, %mm1', ...FPU_EPILOGUE], mask: ALL, kind: 'fpu' }));
  add(1, (rnd) => ({ asm: [`leaq ${-0x300 + rnd(64)}(%rbx), %rdi`, `movdqu ${Q(rnd)}, %xmm1`, `movdqu ${Q(rnd)}, %xmm2`, 'maskmovdqu %xmm2, %xmm1', ...FPU_EPILOGUE], mask: ALL, kind: 'fpu' }));
}

// ---- MXCSR ---------------------------------------------------------------------------------
// SSE floating point under a random MXCSR (rounding control, FTZ, DAZ, flags
// already set; now and then an unmasked exception: #XM), on operands from
// the floating-point tables (every class) or random bits; the lanes' results
// and MXCSR (STMXCSR) are stored and compared.
function mxcsrTemplates(add) {
  const X = (rnd) => `%xmm${rnd(16)}`;
  const SRC = (rnd) => `${rnd(2) ? FPU_LAYOUT.f64 + rnd(24) * 8 : FPU_LAYOUT.f32 + rnd(28) * 4}(%rbx)`;
  const OUT = (rnd) => `${-0x300 + rnd(16) * 16}(%rbx)`;
  const control = (rnd, unmasked) => {
    let m = 0x1f80 | (rnd(4) << 13) | (rnd(4) === 0 ? 0x8000 : 0) | (rnd(4) === 0 ? 0x40 : 0) | (rnd(3) === 0 ? rnd(64) : 0);
    if (unmasked) m &= ~(1 << (7 + rnd(6)));
    return m;
  };
  const ops = [
    ...['add', 'sub', 'mul', 'div', 'min', 'max', 'sqrt'].flatMap((o) => [`${o}ss`, `${o}sd`, `${o}ps`, `${o}pd`]),
    'addsubps', 'addsubpd', 'haddps', 'haddpd', 'hsubps', 'hsubpd', 'cvtss2sd', 'cvtsd2ss', 'cvtps2pd', 'cvtpd2ps', 'cvtdq2ps',
    'cvtps2dq', 'cvttps2dq', 'cvtpd2dq', 'cvttpd2dq',
  ];
  const step = (rnd) => {
    const a = X(rnd), b = X(rnd);
    const k = rnd(10);
    if (k < 6) return [`${ops[rnd(ops.length)]} ${b}, ${a}`];
    if (k === 6) return [`${['cmpps', 'cmppd', 'cmpss', 'cmpsd'][rnd(4)]} $${rnd(8)}, ${b}, ${a}`];
    if (k === 7) return [`${['comiss', 'comisd', 'ucomiss', 'ucomisd'][rnd(4)]} ${b}, ${a}`];
    if (k === 8) return [`${['roundps', 'roundpd', 'roundss', 'roundsd', 'dpps', 'dppd'][rnd(6)]} $${rnd(256)}, ${b}, ${a}`];
    const s = rnd(2) ? 'q' : 'l';
    return [[`cvtsi2sd${s} ${s === 'q' ? '%rax' : '%eax'}, ${a}`,
      `cvtsi2ss${s} ${s === 'q' ? '%rcx' : '%ecx'}, ${a}`, `cvtsd2si ${b}, ${s === 'q' ? '%rsi' : '%esi'}`, `cvttsd2si ${b}, ${s === 'q' ? '%rdi' : '%edi'}`,
      `cvtss2si ${b}, ${s === 'q' ? '%r8' : '%r8d'}`, `cvttss2si ${b}, ${s === 'q' ? '%r9' : '%r9d'}`][rnd(6)]];
  };
  for (const unmasked of [false, true]) add(unmasked ? 3 : 20, (rnd) => {
    const asm = [`movl $${control(rnd, unmasked)}, ${-0x104}(%rbx)`, `ldmxcsr ${-0x104}(%rbx)`];
    for (let i = 0; i < 4; i++) asm.push(rnd(3) ? `movdqu ${SRC(rnd)}, %xmm${i * 4 + rnd(4)}` : `movdqu ${-0x200 + rnd(200)}(%rbx), %xmm${i * 4 + rnd(4)}`);
    for (let i = 1 + rnd(3); i > 0; i--) asm.push(...step(rnd));
    asm.push(`stmxcsr ${-0x108}(%rbx)`, `movdqu ${X(rnd)}, ${OUT(rnd)}`, `movdqu ${X(rnd)}, ${OUT(rnd)}`);
    return { asm, mask: ALL, kind: 'fpu' };
  });
}

// ---- x87 --------------------------------------------------------------------------------
// A case loads operands from the tables test/exec-case.mjs puts at rbx
// (FPU_LAYOUT), runs a few x87 instructions (under a random control word
// half of the time), stores results below rbx, and ends with FXSAVE of the
// whole FPU/SSE state at rbx + 0x900: the memory comparison then covers
// registers, stack top, tags, status and control words. The image's last
// instruction and data pointers, opcode and MXCSR_MASK are zeroed after it
// (implementation details: this host's FXSAVE leaves them 0 unless an
// exception is pending, and its MXCSR_MASK is its own).
const FXSAVE_AT = FXSAVE_IMAGE - FPU_TABLES;
const FPU_EPILOGUE = [`fxsave64 ${FXSAVE_AT}(%rbx)`, `movw $0, ${FXSAVE_AT + 6}(%rbx)`, `movq $0, ${FXSAVE_AT + 8}(%rbx)`,
  `movq $0, ${FXSAVE_AT + 16}(%rbx)`, `movl $0, ${FXSAVE_AT + 28}(%rbx)`];
const ENV = -0x180; // 108 bytes for FNSAVE
/** FNSTENV/FNSAVE images: the pointer fields (bytes 12-27) zeroed, as in the FXSAVE image. */
const maskEnvironment = () => [12, 16, 20, 24].map((o) => `movl $0, ${ENV + o}(%rbx)`);

function x87Templates(add) {
  const slot = (rnd, table, n, size) => `${FPU_LAYOUT[table] + rnd(n) * size}(%rbx)`;
  const X80 = (rnd) => slot(rnd, 'x80', 32, 16);
  const F64 = (rnd) => slot(rnd, 'f64', 32, 8);
  const F32 = (rnd) => slot(rnd, 'f32', 32, 4);
  const I16 = (rnd) => slot(rnd, 'i16', 8, 2);
  const I32 = (rnd) => slot(rnd, 'i32', 8, 4);
  const I64 = (rnd) => slot(rnd, 'i64', 8, 8);
  const CW = (rnd) => slot(rnd, 'cw', 8, 2);
  const OUT = (rnd) => `${-0x300 + rnd(8) * 16}(%rbx)`;
  const st = (rnd) => `%st(${rnd(8)})`;
  const loads = [
    (rnd) => [`flds ${F32(rnd)}`], (rnd) => [`fldl ${F64(rnd)}`], (rnd) => [`fldt ${X80(rnd)}`], (rnd) => [`fldt ${X80(rnd)}`],
    (rnd) => [`filds ${I16(rnd)}`], (rnd) => [`fildl ${I32(rnd)}`], (rnd) => [`fildll ${I64(rnd)}`],
    (rnd) => [['fld1', 'fldz', 'fldpi', 'fldl2e', 'fldl2t', 'fldlg2', 'fldln2'][rnd(7)]],
    (rnd) => [`fld ${st(rnd)}`],
  ];
  const ARITH = ['add', 'mul', 'sub', 'subr', 'div', 'divr'];
  const ops = [
    ...loads,
    (rnd) => { const o = ARITH[rnd(6)]; return [[`f${o}s ${F32(rnd)}`, `f${o}l ${F64(rnd)}`, `fi${o}s ${I16(rnd)}`, `fi${o}l ${I32(rnd)}`][rnd(4)]]; },
    (rnd) => { const o = ARITH[rnd(6)]; return [[`f${o} ${st(rnd)}, %st`, `f${o} %st, ${st(rnd)}`, `f${o}p %st, ${st(rnd)}`][rnd(3)]]; },
    (rnd) => { const o = ARITH[rnd(6)]; return [[`f${o} ${st(rnd)}, %st`, `f${o} %st, ${st(rnd)}`, `f${o}p %st, ${st(rnd)}`][rnd(3)]]; },
    (rnd) => [[`fcoms ${F32(rnd)}`, `fcoml ${F64(rnd)}`, `fcomps ${F32(rnd)}`, `fcompl ${F64(rnd)}`, `ficoms ${I16(rnd)}`, `ficoml ${I32(rnd)}`, `ficomps ${I16(rnd)}`, `ficompl ${I32(rnd)}`][rnd(8)]],
    (rnd) => [[`fcom ${st(rnd)}`, `fcomp ${st(rnd)}`, `fucom ${st(rnd)}`, `fucomp ${st(rnd)}`, 'fcompp', 'fucompp', 'ftst', 'fxam'][rnd(8)]],
    (rnd) => [`${['fcomi', 'fcomip', 'fucomi', 'fucomip'][rnd(4)]} ${st(rnd)}, %st`],
    (rnd) => [[`fsts ${OUT(rnd)}`, `fstps ${OUT(rnd)}`, `fstl ${OUT(rnd)}`, `fstpl ${OUT(rnd)}`, `fstpt ${OUT(rnd)}`][rnd(5)]],
    (rnd) => [[`fists ${OUT(rnd)}`, `fistps ${OUT(rnd)}`, `fistl ${OUT(rnd)}`, `fistpl ${OUT(rnd)}`, `fistpll ${OUT(rnd)}`, `fisttps ${OUT(rnd)}`, `fisttpl ${OUT(rnd)}`, `fisttpll ${OUT(rnd)}`][rnd(8)]],
    (rnd) => { const o = OUT(rnd); return rnd(2) ? [`fbstp ${o}`, `fbld ${o}`] : [`fbstp ${o}`]; },
    (rnd) => [[`fxch ${st(rnd)}`, `fst ${st(rnd)}`, `fstp ${st(rnd)}`, `ffree ${st(rnd)}`, 'fincstp', 'fdecstp', 'fabs', 'fchs', 'fnop'][rnd(9)]],
    (rnd) => [['fsqrt', 'frndint', 'fscale', 'fxtract', 'fprem', 'fprem1', 'fsqrt', 'frndint'][rnd(8)]],
    (rnd) => [`${['fcmovb', 'fcmove', 'fcmovbe', 'fcmovu', 'fcmovnb', 'fcmovne', 'fcmovnbe', 'fcmovnu'][rnd(8)]} ${st(rnd)}, %st`],
    (rnd) => [[`fldcw ${CW(rnd)}`, `fnstcw ${OUT(rnd)}`, `fnstsw ${OUT(rnd)}`, 'fnstsw %ax', 'fnclex', 'fwait'][rnd(6)]],
    (rnd) => [[`fnstenv ${ENV}(%rbx)`, ...maskEnvironment()], [`fnstenv ${ENV}(%rbx)`, ...maskEnvironment(), `fldenv ${ENV}(%rbx)`],
      [`fnsave ${ENV}(%rbx)`, ...maskEnvironment()], [`fnsave ${ENV}(%rbx)`, `frstor ${ENV}(%rbx)`, ...maskEnvironment(), ...(rnd(2) ? [] : ['fninit'])],
      [`fxsave64 ${FXSAVE_AT}(%rbx)`, 'fninit', `fxrstor64 ${FXSAVE_AT}(%rbx)`]][rnd(5)],
  ];
  const sequence = (rnd, unmasked) => {
    const asm = [];
    if (unmasked) asm.push(`movw $${0x37f & ~(1 << rnd(6)) & ~(rnd(3) ? 0 : 1 << rnd(6))}, ${-0x100}(%rbx)`, `fldcw ${-0x100}(%rbx)`);
    else if (rnd(2)) asm.push(`fldcw ${CW(rnd)}`);
    for (let i = 1 + rnd(3); i > 0; i--) asm.push(...loads[rnd(loads.length - 1)](rnd));
    for (let i = 1 + rnd(4); i > 0; i--) asm.push(...ops[rnd(ops.length)](rnd));
    if (unmasked) asm.push('fwait');
    return { asm: [...asm, ...FPU_EPILOGUE], mask: ALL, kind: 'fpu' };
  };
  add(60, (rnd) => sequence(rnd, false));
  add(4, (rnd) => sequence(rnd, true));
  // a stack that overflows, or underflows, with a masked or unmasked invalid exception
  add(4, (rnd) => {
    const asm = rnd(3) ? [] : [`movw $0x37e, ${-0x100}(%rbx)`, `fldcw ${-0x100}(%rbx)`];
    if (rnd(2)) for (let i = 0; i < 9; i++) asm.push(...loads[rnd(loads.length - 1)](rnd));
    else asm.push(...ops[rnd(ops.length)](rnd), ...ops[rnd(ops.length)](rnd));
    return { asm: [...asm, ...FPU_EPILOGUE], mask: ALL, kind: 'fpu' };
  });
  // transcendental instructions: results compared within an ulp (their last bit is the processor's own)
  const TRANS = ['f2xm1', 'fyl2x', 'fyl2xp1', 'fpatan', 'fsin', 'fcos', 'fsincos', 'fptan'];
  add(16, (rnd) => {
    const asm = [];
    if (rnd(2)) asm.push(`fldcw ${CW(rnd)}`);
    asm.push(`fldt ${X80(rnd)}`, `fldt ${X80(rnd)}`);
    asm.push(TRANS[rnd(TRANS.length)]);
    asm.push('fstpt -0x300(%rbx)', 'fstpt -0x2f0(%rbx)', 'fnstsw -0x2e0(%rbx)');
    return { asm, mask: ALL, kind: 'fpu-approx' };
  });
}

function assemble(lines) {
  const out = execFileSync('llvm-mc', ['-triple=x86_64', '--show-encoding', '--output-asm-variant=0'], { input: lines.join('\n') + '\n', maxBuffer: 1 << 28 }).toString();
  const enc = [];
  for (const l of out.split('\n')) {
    const m = /encoding: \[([^\]]*)\]/.exec(l);
    if (m) enc.push(m[1].split(',').filter(Boolean).map((x) => (x.startsWith('0x') ? parseInt(x, 16) : NaN)));
  }
  return enc;
}

const tpl = templates();
const weights = tpl.reduce((n, x) => n + x.w, 0);
const pick = (rnd) => { let k = rnd(weights); for (const x of tpl) { if (k < x.w) return x; k -= x.w; } return tpl[0]; };

// Build cases; code assembled in one llvm-mc run per case block (labels need
// per-case scopes, so each case is wrapped in its own section-free block and
// uses numeric local labels).
// One case in eight is a sequence of 2-4 instructions drawn from templates
// whose flags are all defined, so any later instruction may read them.
const cases = [];
for (let i = 0; i < COUNT; i++) {
  const seed = FIRST + i;
  const r = prng(seed ^ 0x5bd1e995);
  const rnd = (n) => r() % n;
  if (rnd(8) === 0) {
    const asm = [];
    const bytes = [];
    const n = 2 + rnd(3);
    let guard = 0;
    while (asm.length + (bytes.length ? 1 : 0) < n && guard++ < 100) {
      const g = pick(rnd).f(rnd);
      if (g.mask !== ALL || g.kind) continue;
      if (g.bytes) { if (asm.length || bytes.length) continue; bytes.push(...g.bytes); } else asm.push(...g.asm);
    }
    // byte-coded parts go first: they are self-contained
    cases.push({ seed, asm, bytes: bytes.length ? bytes : undefined, mask: ALL, kind: 0 });
    continue;
  }
  const g = pick(rnd).f(rnd);
  cases.push({ seed, asm: g.asm ?? [], bytes: g.bytes, mask: g.mask, kind: Math.max(0, KINDS.indexOf(g.kind ?? 'plain')) });
}
// assemble each case's instructions; relative labels (1f) need the whole block, so
// assemble the block with markers and split by instruction count.
const text = [];
for (const c of cases) for (const a of c.asm) text.push(a);
const enc = assemble(text);
if (enc.length !== text.length) {
  // find the offending line for a clear message
  throw new Error(`llvm-mc produced ${enc.length} encodings for ${text.length} lines`);
}
let k = 0;
for (const c of cases) {
  const bytes = c.bytes ? [...c.bytes] : [];
  for (let j = 0; j < c.asm.length; j++) for (const b of enc[k++]) bytes.push(b);
  if (bytes.some((b) => Number.isNaN(b))) throw new Error(`unresolved fixup in case ${c.seed}: ${c.asm.join('; ')}`);
  c.code = bytes;
}
// a record keeps at most 255 code bytes: the few longer x87 sequences are left out
for (let i = cases.length - 1; i >= 0; i--) if (cases[i].code.length > 255) cases.splice(i, 1);

// native run
const dir = mkdtempSync(join(tmpdir(), 'x86-vectors-'));
const harness = join(dir, 'native-harness');
execFileSync('clang', ['-O1', '-o', harness, join(pkg, 'scripts/native-harness.c')]);
const input = [];
for (const c of cases) {
  const st = initialState(c.seed, KINDS[c.kind]);
  c.state = st;
  const b = Buffer.alloc(4 + 136 + DATA_SIZE + c.code.length);
  b.writeUInt32LE(c.code.length, 0);
  st.regs.forEach((v, i) => b.writeBigUInt64LE(BigInt.asUintN(64, v), 4 + i * 8));
  b.writeBigUInt64LE(BigInt(st.flags), 4 + 128);
  Buffer.from(st.data).copy(b, 140);
  Buffer.from(c.code).copy(b, 140 + DATA_SIZE);
  input.push(b);
}
const inFile = join(dir, 'in.bin');
writeFileSync(inFile, Buffer.concat(input));
const out = execFileSync(harness, { input: Buffer.concat(input), maxBuffer: 1 << 30 });
const recSize = 4 + 136 + DATA_SIZE;
if (out.length !== recSize * cases.length) throw new Error(`native harness returned ${out.length} bytes for ${cases.length} cases`);
// the signal, and for SIGFPE the trap number the harness read (#DE 0, #MF 16, #XM 19)
const SIGNAL_VECTOR = { 5: 3, 4: 6, 11: 13, 7: 13 };
const records = [];
cases.forEach((c, i) => {
  const o = i * recSize;
  const word = out.readUInt32LE(o);
  const sig = word & 0xff;
  const fault = !sig ? 0 : sig === 8 ? (word >> 8) & 0xff : (SIGNAL_VECTOR[sig] ?? 255);
  const regs = [];
  const mem = [];
  let flags = 0;
  if (!sig) {
    for (let j = 0; j < 16; j++) {
      const v = out.readBigUInt64LE(o + 4 + j * 8);
      regs.push(v === BigInt.asUintN(64, c.state.regs[j]) ? undefined : v);
    }
    flags = Number(out.readBigUInt64LE(o + 4 + 128) & 0xfffn);
    for (let q = 0; q < DATA_SIZE / 8; q++) {
      const v = out.readBigUInt64LE(o + 140 + q * 8);
      const was = Buffer.from(c.state.data.buffer).readBigUInt64LE(q * 8);
      if (v !== was) mem.push([q, v]);
    }
  } else for (let j = 0; j < 16; j++) regs.push(undefined);
  if (sig && fault !== 0 && fault !== 16 && fault !== 19) return; // only #DE, the x87's #MF and SSE's #XM are expected faults
  records.push({ seed: c.seed, kind: c.kind, code: c.code, fault: sig ? 0x80 | fault : 0, flagMask: c.mask, flags, regs, mem });
});
writeFileSync(OUT, gzipSync(encodeCases(records), { level: 9 }));
console.log(`gen-exec-vectors: ${records.length} cases (${records.filter((r) => r.fault).length} #DE) -> ${OUT}; data at 0x${DATA_ADDR.toString(16)}`);
