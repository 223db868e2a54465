// The identifiers every D program starts with, after libdtrace's dt_open.c
// table: built-in variables (with their DIF_VAR_* ids and D types), the
// actions and subroutines (with prototypes checked by the types pass), and
// the aggregating functions. One table; the passes only read it.

import { DIF_SUBR, DIF_VAR } from '@wdtrace/dtrace-core/dif';
import { DTRACEACT, DTRACEAGG } from '@wdtrace/dtrace-core/program';
import type { CType } from '@wdtrace/dtrace-core/types';

/** Type of a built-in variable by C type name; "string" for D strings. */
export interface BuiltinVariable {
  readonly id: number;
  readonly type: string;
  /** Array built-ins (args[], regs[], uregs[]) are indexed. */
  readonly array?: boolean;
}

export const BUILTIN_VARIABLES: ReadonlyMap<string, BuiltinVariable> = new Map<string, BuiltinVariable>([
  ['args', { id: DIF_VAR.ARGS, type: 'int64_t', array: true }],
  ['regs', { id: DIF_VAR.REGS, type: 'uint64_t', array: true }],
  ['uregs', { id: DIF_VAR.UREGS, type: 'uint64_t', array: true }],
  ['curthread', { id: DIF_VAR.CURTHREAD, type: 'uintptr_t' }],
  ['timestamp', { id: DIF_VAR.TIMESTAMP, type: 'uint64_t' }],
  ['vtimestamp', { id: DIF_VAR.VTIMESTAMP, type: 'uint64_t' }],
  ['walltimestamp', { id: DIF_VAR.WALLTIMESTAMP, type: 'int64_t' }],
  ['ipl', { id: DIF_VAR.IPL, type: 'uint_t' }],
  ['epid', { id: DIF_VAR.EPID, type: 'uint_t' }],
  ['id', { id: DIF_VAR.ID, type: 'uint_t' }],
  ['arg0', { id: DIF_VAR.ARG0, type: 'int64_t' }],
  ['arg1', { id: DIF_VAR.ARG1, type: 'int64_t' }],
  ['arg2', { id: DIF_VAR.ARG2, type: 'int64_t' }],
  ['arg3', { id: DIF_VAR.ARG3, type: 'int64_t' }],
  ['arg4', { id: DIF_VAR.ARG4, type: 'int64_t' }],
  ['arg5', { id: DIF_VAR.ARG5, type: 'int64_t' }],
  ['arg6', { id: DIF_VAR.ARG6, type: 'int64_t' }],
  ['arg7', { id: DIF_VAR.ARG7, type: 'int64_t' }],
  ['arg8', { id: DIF_VAR.ARG8, type: 'int64_t' }],
  ['arg9', { id: DIF_VAR.ARG9, type: 'int64_t' }],
  ['stackdepth', { id: DIF_VAR.STACKDEPTH, type: 'uint32_t' }],
  ['ustackdepth', { id: DIF_VAR.USTACKDEPTH, type: 'uint32_t' }],
  ['caller', { id: DIF_VAR.CALLER, type: 'uintptr_t' }],
  ['ucaller', { id: DIF_VAR.UCALLER, type: 'uint64_t' }],
  ['probeprov', { id: DIF_VAR.PROBEPROV, type: 'string' }],
  ['probemod', { id: DIF_VAR.PROBEMOD, type: 'string' }],
  ['probefunc', { id: DIF_VAR.PROBEFUNC, type: 'string' }],
  ['probename', { id: DIF_VAR.PROBENAME, type: 'string' }],
  ['pid', { id: DIF_VAR.PID, type: 'pid_t' }],
  ['ppid', { id: DIF_VAR.PPID, type: 'pid_t' }],
  ['tid', { id: DIF_VAR.TID, type: 'id_t' }],
  ['uid', { id: DIF_VAR.UID, type: 'uid_t' }],
  ['gid', { id: DIF_VAR.GID, type: 'gid_t' }],
  ['errno', { id: DIF_VAR.ERRNO, type: 'int' }],
  ['execname', { id: DIF_VAR.EXECNAME, type: 'string' }],
  ['zonename', { id: DIF_VAR.ZONENAME, type: 'string' }],
  ['threadname', { id: DIF_VAR.THREADNAME, type: 'string' }],
  ['cpu', { id: DIF_VAR.CPU, type: 'processorid_t' }],
  ['curpsinfo', { id: DIF_VAR.CURPSINFO, type: 'psinfo_t *' }],
  ['curlwpsinfo', { id: DIF_VAR.CURLWPSINFO, type: 'lwpsinfo_t *' }],
  ['curcpu', { id: DIF_VAR.CURCPU, type: 'cpuinfo_t *' }],
  ['cwd', { id: DIF_VAR.CWD, type: 'string' }],
  ['root', { id: DIF_VAR.ROOT, type: 'string' }],
]);

/**
 * Parameter kinds of prototypes: 'int' integral, 'ptr' pointer or integer
 * (an address), 'str' string (char arrays and pointers accepted), 'scalar'
 * integer or pointer, 'any' anything, 'agg' an aggregation, 'vararg' the rest.
 */
export type ParamKind = 'int' | 'ptr' | 'str' | 'scalar' | 'any' | 'agg' | 'vararg';

export interface BuiltinSubroutine {
  readonly kind: 'subr';
  readonly subr: number;
  /** Return type name ("string", "int", "void *" ...). */
  readonly returns: string;
  readonly params: readonly ParamKind[];
  /** Minimum number of arguments when some are optional. */
  readonly minArgs?: number;
  readonly destructive?: boolean;
}

export interface BuiltinAction {
  readonly kind: 'action';
  /** DTRACEACT_* for the action's main record. */
  readonly act: number;
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly destructive?: boolean;
}

export interface BuiltinAggregating {
  readonly kind: 'aggregating';
  readonly agg: number;
  readonly minArgs: number;
  readonly maxArgs: number;
  /** Bytes of aggregated data. */
  readonly dataSize: number;
}

export type BuiltinFunction = BuiltinSubroutine | BuiltinAction | BuiltinAggregating;

const subr = (subrId: number, returns: string, params: ParamKind[], extra: Partial<BuiltinSubroutine> = {}): BuiltinSubroutine => ({
  kind: 'subr',
  subr: subrId,
  returns,
  params,
  ...extra,
});
const act = (a: number, minArgs: number, maxArgs: number, destructive = false): BuiltinAction => ({
  kind: 'action',
  act: a,
  minArgs,
  maxArgs,
  ...(destructive ? { destructive } : {}),
});
const agg = (a: number, minArgs: number, maxArgs: number, dataSize: number): BuiltinAggregating => ({
  kind: 'aggregating',
  agg: a,
  minArgs,
  maxArgs,
  dataSize,
});

/** Pseudo action codes for actions recorded through DTRACEACT_LIBACT and friends; see the codegen pass. */
export const BUILTIN_FUNCTIONS: ReadonlyMap<string, BuiltinFunction> = new Map<string, BuiltinFunction>([
  // Subroutines (dt_open.c prototypes).
  ['rand', subr(DIF_SUBR.RAND, 'int', [])],
  ['mutex_owned', subr(DIF_SUBR.MUTEX_OWNED, 'int', ['ptr'])],
  ['mutex_owner', subr(DIF_SUBR.MUTEX_OWNER, 'uintptr_t', ['ptr'])],
  ['mutex_type_adaptive', subr(DIF_SUBR.MUTEX_TYPE_ADAPTIVE, 'int', ['ptr'])],
  ['mutex_type_spin', subr(DIF_SUBR.MUTEX_TYPE_SPIN, 'int', ['ptr'])],
  ['rw_read_held', subr(DIF_SUBR.RW_READ_HELD, 'int', ['ptr'])],
  ['rw_write_held', subr(DIF_SUBR.RW_WRITE_HELD, 'int', ['ptr'])],
  ['rw_iswriter', subr(DIF_SUBR.RW_ISWRITER, 'int', ['ptr'])],
  ['copyin', subr(DIF_SUBR.COPYIN, 'void *', ['ptr', 'int'])],
  ['copyinstr', subr(DIF_SUBR.COPYINSTR, 'string', ['ptr', 'int'], { minArgs: 1 })],
  ['speculation', subr(DIF_SUBR.SPECULATION, 'int', [])],
  ['progenyof', subr(DIF_SUBR.PROGENYOF, 'int', ['int'])],
  ['strlen', subr(DIF_SUBR.STRLEN, 'size_t', ['str'])],
  ['copyout', subr(DIF_SUBR.COPYOUT, 'void', ['ptr', 'ptr', 'int'], { destructive: true })],
  ['copyoutstr', subr(DIF_SUBR.COPYOUTSTR, 'void', ['str', 'ptr', 'int'], { destructive: true })],
  ['alloca', subr(DIF_SUBR.ALLOCA, 'void *', ['int'])],
  ['bcopy', subr(DIF_SUBR.BCOPY, 'void', ['ptr', 'ptr', 'int'])],
  ['copyinto', subr(DIF_SUBR.COPYINTO, 'void', ['ptr', 'int', 'ptr'])],
  ['msgdsize', subr(DIF_SUBR.MSGDSIZE, 'size_t', ['ptr'])],
  ['msgsize', subr(DIF_SUBR.MSGSIZE, 'size_t', ['ptr'])],
  ['getmajor', subr(DIF_SUBR.GETMAJOR, 'major_t', ['int'])],
  ['getminor', subr(DIF_SUBR.GETMINOR, 'minor_t', ['int'])],
  ['ddi_pathname', subr(DIF_SUBR.DDI_PATHNAME, 'string', ['ptr', 'int'])],
  ['strjoin', subr(DIF_SUBR.STRJOIN, 'string', ['str', 'str'])],
  ['lltostr', subr(DIF_SUBR.LLTOSTR, 'string', ['int', 'int'], { minArgs: 1 })],
  ['basename', subr(DIF_SUBR.BASENAME, 'string', ['str'])],
  ['dirname', subr(DIF_SUBR.DIRNAME, 'string', ['str'])],
  ['cleanpath', subr(DIF_SUBR.CLEANPATH, 'string', ['str'])],
  ['strchr', subr(DIF_SUBR.STRCHR, 'string', ['str', 'int'])],
  ['strrchr', subr(DIF_SUBR.STRRCHR, 'string', ['str', 'int'])],
  ['strstr', subr(DIF_SUBR.STRSTR, 'string', ['str', 'str'])],
  ['strtok', subr(DIF_SUBR.STRTOK, 'string', ['str', 'str'])],
  ['substr', subr(DIF_SUBR.SUBSTR, 'string', ['str', 'int', 'int'], { minArgs: 2 })],
  ['index', subr(DIF_SUBR.INDEX, 'int', ['str', 'str', 'int'], { minArgs: 2 })],
  ['rindex', subr(DIF_SUBR.RINDEX, 'int', ['str', 'str', 'int'], { minArgs: 2 })],
  ['htons', subr(DIF_SUBR.HTONS, 'uint16_t', ['int'])],
  ['htonl', subr(DIF_SUBR.HTONL, 'uint32_t', ['int'])],
  ['htonll', subr(DIF_SUBR.HTONLL, 'uint64_t', ['int'])],
  ['ntohs', subr(DIF_SUBR.NTOHS, 'uint16_t', ['int'])],
  ['ntohl', subr(DIF_SUBR.NTOHL, 'uint32_t', ['int'])],
  ['ntohll', subr(DIF_SUBR.NTOHLL, 'uint64_t', ['int'])],
  ['inet_ntop', subr(DIF_SUBR.INET_NTOP, 'string', ['int', 'ptr'])],
  ['inet_ntoa', subr(DIF_SUBR.INET_NTOA, 'string', ['ptr'])],
  ['inet_ntoa6', subr(DIF_SUBR.INET_NTOA6, 'string', ['ptr'])],
  ['toupper', subr(DIF_SUBR.TOUPPER, 'string', ['str'])],
  ['tolower', subr(DIF_SUBR.TOLOWER, 'string', ['str'])],
  ['getf', subr(DIF_SUBR.GETF, 'uintptr_t', ['int'])],
  ['json', subr(DIF_SUBR.JSON, 'string', ['str', 'str'])],
  ['strtoll', subr(DIF_SUBR.STRTOLL, 'int64_t', ['str', 'int'], { minArgs: 1 })],

  // Data-recording and other actions.
  ['trace', act(DTRACEACT.DIFEXPR, 1, 1)],
  ['print', act(DTRACEACT.DIFEXPR, 1, 1)],
  ['tracemem', act(DTRACEACT.TRACEMEM, 2, 3)],
  ['printf', act(DTRACEACT.PRINTF, 1, Infinity)],
  ['printa', act(DTRACEACT.PRINTA, 1, Infinity)],
  ['stack', act(DTRACEACT.STACK, 0, 1)],
  ['ustack', act(DTRACEACT.USTACK, 0, 2)],
  ['jstack', act(DTRACEACT.JSTACK, 0, 2)],
  ['sym', act(DTRACEACT.SYM, 1, 1)],
  ['func', act(DTRACEACT.SYM, 1, 1)],
  ['mod', act(DTRACEACT.MOD, 1, 1)],
  ['usym', act(DTRACEACT.USYM, 1, 1)],
  ['ufunc', act(DTRACEACT.USYM, 1, 1)],
  ['umod', act(DTRACEACT.UMOD, 1, 1)],
  ['uaddr', act(DTRACEACT.UADDR, 1, 1)],
  ['exit', act(DTRACEACT.EXIT, 1, 1)],
  ['speculate', act(DTRACEACT.SPECULATE, 1, 1)],
  ['commit', act(DTRACEACT.COMMIT, 1, 1)],
  ['discard', act(DTRACEACT.DISCARD, 1, 1)],
  ['clear', act(DTRACEACT.LIBACT, 1, 1)],
  ['trunc', act(DTRACEACT.LIBACT, 1, 2)],
  ['normalize', act(DTRACEACT.LIBACT, 2, 2)],
  ['denormalize', act(DTRACEACT.LIBACT, 1, 1)],
  ['setopt', act(DTRACEACT.LIBACT, 1, 2)],
  ['ftruncate', act(DTRACEACT.LIBACT, 0, 0)],
  ['stop', act(DTRACEACT.STOP, 0, 0, true)],
  ['raise', act(DTRACEACT.RAISE, 1, 1, true)],
  ['system', act(DTRACEACT.SYSTEM, 1, Infinity, true)],
  ['freopen', act(DTRACEACT.FREOPEN, 1, Infinity, true)],
  ['panic', act(DTRACEACT.PANIC, 0, 0, true)],
  ['breakpoint', act(DTRACEACT.BREAKPOINT, 0, 0, true)],
  ['chill', act(DTRACEACT.CHILL, 1, 1, true)],

  // Aggregating functions.
  ['count', agg(DTRACEAGG.COUNT, 0, 0, 8)],
  ['sum', agg(DTRACEAGG.SUM, 1, 1, 8)],
  ['avg', agg(DTRACEAGG.AVG, 1, 1, 16)],
  ['min', agg(DTRACEAGG.MIN, 1, 1, 8)],
  ['max', agg(DTRACEAGG.MAX, 1, 1, 8)],
  ['stddev', agg(DTRACEAGG.STDDEV, 1, 1, 32)],
  ['quantize', agg(DTRACEAGG.QUANTIZE, 1, 2, 127 * 8)],
  ['lquantize', agg(DTRACEAGG.LQUANTIZE, 3, 5, 0)],
  ['llquantize', agg(DTRACEAGG.LLQUANTIZE, 5, 6, 0)],
]);

/** Macro variables with the process attribute they stand for. */
export const MACRO_VARIABLES = ['egid', 'euid', 'gid', 'pid', 'pgid', 'ppid', 'projid', 'sid', 'target', 'taskid', 'uid'] as const;

/** dt_idkind_name()'s words for a built-in function's kind, as D_CG_EXPR names it. */
export function functionKindName(kind: 'subr' | 'action' | 'aggregating'): string {
  return kind === 'action' ? 'tracing function' : kind === 'aggregating' ? 'aggregating function' : 'function';
}

/** Actions whose records may be aggregation keys. */
export const KEY_ACTIONS: ReadonlySet<string> = new Set(['stack', 'ustack', 'jstack', 'sym', 'func', 'mod', 'usym', 'ufunc', 'umod', 'uaddr']);

const actionKeyTypes = new Map<string, CType>();

/** The type of an action key: a typedef of int64_t named after the action (one object per name, so keys compare equal). */
export function actionKeyType(name: string, int64: CType): CType {
  let t = actionKeyTypes.get(name);
  if (t === undefined) actionKeyTypes.set(name, (t = { kind: 'typedef', name, target: int64 }));
  return t;
}
