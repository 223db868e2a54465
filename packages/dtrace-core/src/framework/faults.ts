// Probe-context faults (DTRACEFLT_* of illumos <sys/dtrace.h>) and their
// wording in dtrace(1)'s error messages (dtrace_faultstr).

export const DTRACEFLT = {
  UNKNOWN: 0,
  BADADDR: 1,
  BADALIGN: 2,
  ILLOP: 3,
  DIVZERO: 4,
  NOSCRATCH: 5,
  KPRIV: 6,
  UPRIV: 7,
  TUPOFLOW: 8,
  BADSTACK: 9,
} as const;

const FAULT_STRINGS: Record<number, string> = {
  [DTRACEFLT.UNKNOWN]: 'unknown fault',
  [DTRACEFLT.BADADDR]: 'invalid address',
  [DTRACEFLT.BADALIGN]: 'invalid alignment',
  [DTRACEFLT.ILLOP]: 'illegal operation',
  [DTRACEFLT.DIVZERO]: 'divide-by-zero',
  [DTRACEFLT.NOSCRATCH]: 'out of scratch space',
  [DTRACEFLT.KPRIV]: 'invalid kernel access',
  [DTRACEFLT.UPRIV]: 'invalid user access',
  [DTRACEFLT.TUPOFLOW]: 'tuple stack overflow',
  [DTRACEFLT.BADSTACK]: 'bad stack',
};

export function faultString(fault: number): string {
  return FAULT_STRINGS[fault] ?? 'unknown fault';
}

/** A fault raised while executing DIF: stops the clause; the framework fires dtrace:::ERROR. */
export class DifFault extends Error {
  constructor(
    readonly fault: number,
    readonly address: bigint,
    /** Byte offset of the faulting instruction in its DIFO (instruction index * 4), -1 when outside DIF. */
    public difOffset = -1,
  ) {
    super(faultString(fault));
  }
}
