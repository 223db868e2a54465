// SDT site naming and patching: turns `__dtrace_probe_<name>` call sites into
// the ISA's no-op and describes each site for the sdt provider.
//
// Naming follows illumos: `__dtrace_probe___proc_exec` is proc:::exec,
// `__sched_` and `__io_` select the sched and io providers, anything else
// belongs to sdt; inside the probe part a double underscore stands for '-'.

import type { Isa } from '../isa.js';
import { patchX86SdtSite } from './sdt-x86_64.js';
import { patchArmSdtSite } from './sdt-arm.js';
import type { PatchedSdtSite } from './sdt-patch.js';

export type { PatchedSdtSite } from './sdt-patch.js';
export { X86_SDT_NOP, X86_SDT_RET } from './sdt-x86_64.js';
export { ARM_SDT_NOP, ARM_BX_LR, THUMB_SDT_NOP, THUMB_SDT_BX_LR, R_ARM_THM_CALL, R_ARM_THM_JUMP24 } from './sdt-arm.js';

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

/** Each ISA's SDT site patcher (one file per ISA). */
const PATCHERS: Record<Isa, (code: Uint8Array, codeAddress: bigint, relocAt: bigint, symbol: string, relocType?: number) => PatchedSdtSite> = {
  x86_64: patchX86SdtSite,
  arm: patchArmSdtSite,
};

/**
 * Patch one SDT site in `code`, whose first byte is at virtual address
 * `codeAddress`. `relocAt` is the relocation's place (x86-64: call+1; ARM: the
 * branch). Returns the site's instruction address and the bytes written.
 */
export function patchSdtSite(isa: Isa, code: Uint8Array, codeAddress: bigint, relocAt: bigint, symbol: string, relocType?: number): PatchedSdtSite {
  return PATCHERS[isa](code, codeAddress, relocAt, symbol, relocType);
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
