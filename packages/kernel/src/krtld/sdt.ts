// SDT site naming and patching: turns `__dtrace_probe_<name>` call sites into
// the ISA's no-op and describes each site for the sdt provider.
//
// Naming follows illumos: `__dtrace_probe___proc_exec` is proc:::exec,
// `__sched_` and `__io_` select the sched and io providers, anything else
// belongs to sdt; inside the probe part a double underscore stands for '-'.

import type { Isa } from '../isa.js';

/** The symbol prefix of an SDT call target. */
export const SDT_PREFIX = '__dtrace_probe_';

/** Providers selected by a `__<provider>_` prefix after SDT_PREFIX. */
export const SDT_NAMED_PROVIDERS: readonly string[] = ['proc', 'sched', 'io'];

/** One SDT call site, disabled (patched to no-ops). */
export interface SdtSite {
  /** Module the site belongs to ('kernel' for the core kernel). */
  readonly module: string;
  /** Function containing the call ('' when no symbol covers it). */
  readonly function: string;
  readonly provider: string;
  readonly probe: string;
  /** The undefined symbol that was called. */
  readonly symbol: string;
  /** Virtual address of the patched instruction. */
  readonly address: bigint;
  /** Bytes written over the call (the ISA's no-op, or a return for a tail jump). */
  readonly patch: Uint8Array;
  /** Bytes that were there before, as relocated (for diagnostics). */
  readonly original: Uint8Array;
  /** True when the site was a tail jump, patched to return instead. */
  readonly tailCall: boolean;
  /**
   * C types of the probe's arguments as written at the site, from the
   * object's argument-type record (see SDT_ARGTYPES_SECTION); empty when the
   * object has no usable record for the probe.
   */
  readonly argTypes: readonly string[];
}

/** Split an SDT symbol into provider and probe names. */
export function sdtProbeName(symbol: string): { provider: string; probe: string } {
  if (!symbol.startsWith(SDT_PREFIX)) throw new Error(`${symbol} is not an SDT probe symbol (no ${SDT_PREFIX} prefix)`);
  let rest = symbol.slice(SDT_PREFIX.length);
  let provider = 'sdt';
  for (const p of SDT_NAMED_PROVIDERS) {
    if (rest.startsWith(`__${p}_`)) {
      provider = p;
      rest = rest.slice(p.length + 3);
      break;
    }
  }
  if (rest === '') throw new Error(`${symbol} names no probe`);
  return { provider, probe: rest.replace(/__/g, '-') };
}

/** x86-64 5-byte nop (0f 1f 44 00 00) over `call rel32`. */
export const X86_SDT_NOP = Uint8Array.of(0x0f, 0x1f, 0x44, 0x00, 0x00);
/** x86-64 `ret` followed by a 4-byte nop, over a tail `jmp rel32`. */
export const X86_SDT_RET = Uint8Array.of(0xc3, 0x0f, 0x1f, 0x40, 0x00);
/** ARM nop (0xe320f000) over `bl`. */
export const ARM_SDT_NOP = 0xe320f000;
/** ARM `bx lr` (condition bits taken from the replaced branch) over a tail `b`. */
export const ARM_BX_LR = 0x012fff1e;
/** T32 `nop.w` (halfwords f3af 8000) over a Thumb `bl`. */
export const THUMB_SDT_NOP = Uint8Array.of(0xaf, 0xf3, 0x00, 0x80);
/** T32 `bx lr` then `nop` (halfwords 4770 bf00) over a Thumb tail `b.w`. */
export const THUMB_SDT_BX_LR = Uint8Array.of(0x70, 0x47, 0x00, 0xbf);
/** The relocation types of the Thumb `bl` and `b.w` (R_ARM_THM_CALL, R_ARM_THM_JUMP24). */
export const R_ARM_THM_CALL = 10;
export const R_ARM_THM_JUMP24 = 30;

/**
 * Patch one SDT site in `code`, whose first byte is at virtual address
 * `codeAddress`. `relocAt` is the relocation's place (x86-64: call+1; ARM: the
 * branch). Returns the site's instruction address and the bytes written.
 */
export function patchSdtSite(
  isa: Isa,
  code: Uint8Array,
  codeAddress: bigint,
  relocAt: bigint,
  symbol: string,
  relocType?: number,
): { address: bigint; patch: Uint8Array; original: Uint8Array; tailCall: boolean } {
  if (isa === 'x86_64') {
    const insn = relocAt - 1n;
    const off = Number(insn - codeAddress);
    if (off < 0 || off + 5 > code.length) throw new Error(`SDT call to ${symbol} at 0x${insn.toString(16)} lies outside its section`);
    const op = code[off];
    if (op !== 0xe8 && op !== 0xe9) {
      throw new Error(`reference to ${symbol} at 0x${insn.toString(16)} is not a call (opcode 0x${(op ?? 0).toString(16)})`);
    }
    const original = code.slice(off, off + 5);
    const patch = op === 0xe8 ? X86_SDT_NOP : X86_SDT_RET;
    code.set(patch, off);
    return { address: insn, patch, original, tailCall: op === 0xe9 };
  }
  if (relocType === R_ARM_THM_CALL || relocType === R_ARM_THM_JUMP24) return patchThumbSdtSite(code, codeAddress, relocAt, symbol);
  const off = Number(relocAt - codeAddress);
  if (off < 0 || off + 4 > code.length || off % 4 !== 0) throw new Error(`SDT call to ${symbol} at 0x${relocAt.toString(16)} lies outside its section or is misaligned`);
  const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
  const insn = dv.getUint32(off, true);
  const original = code.slice(off, off + 4);
  const cond = insn >>> 28;
  const isBranch = ((insn >>> 25) & 7) === 5 && cond !== 0xf;
  if (!isBranch) throw new Error(`reference to ${symbol} at 0x${relocAt.toString(16)} is not a branch (0x${insn.toString(16).padStart(8, '0')})`);
  const link = (insn >>> 24) & 1;
  const word = link ? ARM_SDT_NOP : ((cond << 28) | ARM_BX_LR) >>> 0;
  dv.setUint32(off, word, true);
  return { address: relocAt, patch: code.slice(off, off + 4), original, tailCall: !link };
}

/**
 * A Thumb site: `bl` (T1) becomes `nop.w`, a tail `b.w` (T4) `bx lr; nop`.
 * A tail `b.w` can only be the last instruction of an IT block, whose
 * condition then applies to the `bx lr` in its place.
 */
function patchThumbSdtSite(code: Uint8Array, codeAddress: bigint, at: bigint, symbol: string): { address: bigint; patch: Uint8Array; original: Uint8Array; tailCall: boolean } {
  const off = Number(at - codeAddress);
  if (off < 0 || off + 4 > code.length || off % 2 !== 0) throw new Error(`SDT call to ${symbol} at 0x${at.toString(16)} lies outside its section or is misaligned`);
  const hw0 = code[off]! | (code[off + 1]! << 8);
  const hw1 = code[off + 2]! | (code[off + 3]! << 8);
  const original = code.slice(off, off + 4);
  const hex = `${hw0.toString(16).padStart(4, '0')} ${hw1.toString(16).padStart(4, '0')}`;
  if ((hw0 & 0xf800) !== 0xf000) throw new Error(`reference to ${symbol} at 0x${at.toString(16)} is not a Thumb branch (${hex})`);
  const link = (hw1 & 0xd000) === 0xd000 || (hw1 & 0xd000) === 0xc000;
  const tail = (hw1 & 0xd000) === 0x9000;
  if (!link && !tail) throw new Error(`reference to ${symbol} at 0x${at.toString(16)} is not a Thumb bl or b.w (${hex})`);
  const patch = link ? THUMB_SDT_NOP : THUMB_SDT_BX_LR;
  code.set(patch, off);
  return { address: at, patch: patch.slice(), original, tailCall: tail };
}

/**
 * Section holding the argument-type records that sdt.h's DTRACE_* macros
 * emit. A record is a run of NUL-terminated strings: the probe symbol
 * (`__dtrace_probe_...`), the argument count in decimal, one C type per
 * argument, then an empty string. Records may be separated by NUL bytes.
 */
export const SDT_ARGTYPES_SECTION = '.dtrace_argtypes';

/** Most arguments a record may declare. */
export const SDT_MAX_ARGTYPES = 32;

export interface SdtArgTypes {
  /** Argument types by probe symbol (the first record of each symbol). */
  readonly types: ReadonlyMap<string, readonly string[]>;
  /** What was wrong with the section, if anything (records from the first bad one on are ignored). */
  readonly problems: readonly string[];
}

const textDecoder = new TextDecoder('utf-8');

/**
 * Read the argument-type records of one object's SDT_ARGTYPES_SECTION.
 * Never throws: a malformed record is reported in `problems`, and it and
 * every record after it are ignored. When one symbol has records that
 * disagree, the first is kept and the disagreement reported.
 */
export function parseSdtArgTypes(bytes: Uint8Array, where = SDT_ARGTYPES_SECTION): SdtArgTypes {
  const types = new Map<string, readonly string[]>();
  const problems: string[] = [];
  let pos = 0;
  // The string starting at pos, or undefined when no NUL ends it.
  const next = (): string | undefined => {
    const end = bytes.indexOf(0, pos);
    if (end < 0) return undefined;
    const text = textDecoder.decode(bytes.subarray(pos, end));
    pos = end + 1;
    return text;
  };
  while (pos < bytes.length) {
    if (bytes[pos] === 0) {
      pos++;
      continue;
    }
    const start = pos;
    const at = `${where}+0x${start.toString(16)}`;
    const fail = (what: string): void => {
      problems.push(`${at}: ${what}; this record and the ${bytes.length - start} bytes from it are ignored`);
    };
    const symbol = next();
    if (symbol === undefined) {
      fail('record runs past the end of the section');
      break;
    }
    if (!symbol.startsWith(SDT_PREFIX)) {
      fail(`record names "${symbol.slice(0, 64)}", not an ${SDT_PREFIX}* symbol`);
      break;
    }
    try {
      sdtProbeName(symbol);
    } catch (err) {
      fail((err as Error).message);
      break;
    }
    const count = next();
    if (count === undefined || !/^[0-9]{1,3}$/.test(count) || Number(count) > SDT_MAX_ARGTYPES) {
      fail(count === undefined ? `record of ${symbol} runs past the end of the section` : `record of ${symbol} has argument count "${count.slice(0, 16)}" (want 0 to ${SDT_MAX_ARGTYPES})`);
      break;
    }
    const argTypes: string[] = [];
    let bad: string | undefined;
    for (let i = 0; i < Number(count) && bad === undefined; i++) {
      const t = next();
      if (t === undefined) bad = `record of ${symbol} runs past the end of the section after ${i} of ${count} types`;
      else if (t.trim() === '') bad = `record of ${symbol} has an empty type for argument ${i}`;
      else argTypes.push(t);
    }
    if (bad === undefined && bytes[pos] !== 0) {
      bad = pos >= bytes.length ? `record of ${symbol} has no terminating empty string` : `record of ${symbol} has more strings than its ${count} types`;
    }
    if (bad !== undefined) {
      fail(bad);
      break;
    }
    pos++;
    const known = types.get(symbol);
    if (!known) types.set(symbol, argTypes);
    else if (known.length !== argTypes.length || known.some((t, i) => t !== argTypes[i])) {
      problems.push(`${at}: ${symbol} has types (${argTypes.join(', ')}) here but (${known.join(', ')}) in an earlier record; the earlier ones are used`);
    }
  }
  return { types, problems };
}
