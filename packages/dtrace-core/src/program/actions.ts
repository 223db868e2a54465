// Action kinds (DTRACEACT_* and DTRACEAGG_*) of illumos <sys/dtrace.h>: the
// upper byte is the class (process, destructive, kernel, speculative,
// aggregation), the lower byte the action within it.

export const DTRACEACT = {
  NONE: 0,
  DIFEXPR: 1,
  EXIT: 2,
  PRINTF: 3,
  PRINTA: 4,
  LIBACT: 5,
  TRACEMEM: 6,
  TRACEMEM_DYNSIZE: 7,
  PROC: 0x0100,
  USTACK: 0x0101,
  JSTACK: 0x0102,
  USYM: 0x0103,
  UMOD: 0x0104,
  UADDR: 0x0105,
  PROC_DESTRUCTIVE: 0x0200,
  STOP: 0x0201,
  RAISE: 0x0202,
  SYSTEM: 0x0203,
  FREOPEN: 0x0204,
  PROC_CONTROL: 0x0300,
  KERNEL: 0x0400,
  STACK: 0x0401,
  SYM: 0x0402,
  MOD: 0x0403,
  KERNEL_DESTRUCTIVE: 0x0500,
  BREAKPOINT: 0x0501,
  PANIC: 0x0502,
  CHILL: 0x0503,
  SPECULATIVE: 0x0600,
  SPECULATE: 0x0601,
  COMMIT: 0x0602,
  DISCARD: 0x0603,
  AGGREGATION: 0x0700,
} as const;

export const DTRACEAGG = {
  COUNT: 0x0701,
  MIN: 0x0702,
  MAX: 0x0703,
  AVG: 0x0704,
  SUM: 0x0705,
  STDDEV: 0x0706,
  QUANTIZE: 0x0707,
  LQUANTIZE: 0x0708,
  LLQUANTIZE: 0x0709,
} as const;

/**
 * Library actions (DTRACEACT_LIBACT): handled by the consumer, recorded with
 * their argument value. The arg of the action says which (after libdtrace's
 * DT_ACT_* codes).
 */
export const DT_ACT = {
  PRINTF: 1,
  TRACE: 2,
  TRACEMEM: 3,
  STACK: 4,
  USTACK: 5,
  PRINTA: 6,
  FTRUNCATE: 7,
  CLEAR: 8,
  NORMALIZE: 9,
  DENORMALIZE: 10,
  TRUNC: 11,
  SETOPT: 12,
  PRINT: 13,
} as const;

export const dtraceActClass = (kind: number): number => kind & 0xff00;
export const dtraceActIsDestructive = (kind: number): boolean =>
  dtraceActClass(kind) === DTRACEACT.PROC_DESTRUCTIVE || dtraceActClass(kind) === DTRACEACT.KERNEL_DESTRUCTIVE;
export const dtraceActIsSpeculative = (kind: number): boolean => dtraceActClass(kind) === DTRACEACT.SPECULATIVE;
export const dtraceActIsAggregation = (kind: number): boolean => dtraceActClass(kind) === DTRACEACT.AGGREGATION;
export const dtraceActIsPrintfLike = (kind: number): boolean =>
  kind === DTRACEACT.PRINTF || kind === DTRACEACT.PRINTA || kind === DTRACEACT.SYSTEM || kind === DTRACEACT.FREOPEN;

/** quantize(): 63 negative buckets, zero, 63 positive buckets. */
export const DTRACE_QUANTIZE_NBUCKETS = 127;
export const DTRACE_QUANTIZE_ZEROBUCKET = 63;

/** lquantize(base, limit, step) packed into the aggregation argument, as DTRACE_LQUANTIZE_*. */
export function lquantizeArg(base: number, levels: number, step: number): bigint {
  return (BigInt(step & 0xffff) << 48n) | (BigInt(levels & 0xffff) << 32n) | BigInt(base >>> 0);
}
export function lquantizeParams(arg: bigint): { base: number; levels: number; step: number } {
  return {
    step: Number((arg >> 48n) & 0xffffn),
    levels: Number((arg >> 32n) & 0xffffn),
    base: Number(BigInt.asIntN(32, arg & 0xffffffffn)),
  };
}

/** llquantize(factor, low, high, nsteps) packed as DTRACE_LLQUANTIZE_*. */
export function llquantizeArg(factor: number, low: number, high: number, nsteps: number): bigint {
  return (
    (BigInt(factor & 0xffff) << 48n) | (BigInt(low & 0xffff) << 32n) | (BigInt(high & 0xffff) << 16n) | BigInt(nsteps & 0xffff)
  );
}
export function llquantizeParams(arg: bigint): { factor: number; low: number; high: number; nsteps: number } {
  return {
    factor: Number((arg >> 48n) & 0xffffn),
    low: Number((arg >> 32n) & 0xffffn),
    high: Number((arg >> 16n) & 0xffffn),
    nsteps: Number(arg & 0xffffn),
  };
}

/** ustack(nframes, strsize) packed as DTRACE_USTACK_ARG. */
export function ustackArg(nframes: number, strsize: number): bigint {
  return (BigInt(strsize >>> 0) << 32n) | BigInt(nframes >>> 0);
}
