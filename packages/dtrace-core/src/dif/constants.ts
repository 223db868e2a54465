// DIF constants of illumos <sys/dtrace.h>: instruction-set version, register
// counts, table limits, built-in variable identifiers (DIF_VAR_*),
// subroutine numbers (DIF_SUBR_*), DIF type kinds and flags, and variable
// kinds/scopes/flags. One place for every number the compiler, verifier and
// VM agree on.

export const DIF_VERSION_1 = 1;
export const DIF_VERSION_2 = 2;
export const DIF_VERSION = DIF_VERSION_2;

/** Number of integer registers; %r0 always reads zero. */
export const DIF_DIR_NREGS = 8;
/** Number of tuple-stack registers. */
export const DIF_DTR_NREGS = 8;
export const DIF_REG_R0 = 0;

export const DIF_INTOFF_MAX = 0xffff;
export const DIF_STROFF_MAX = 0xffff;
export const DIF_REGISTER_MAX = 0xff;
export const DIF_VARIABLE_MAX = 0xffff;
export const DIF_SUBROUTINE_MAX = 0xffff;

/** Variable identifier ranges. Array built-ins sit below 0x100, scalars and associative arrays above. */
export const DIF_VAR_ARRAY_MIN = 0x0000;
export const DIF_VAR_ARRAY_UBASE = 0x0080;
export const DIF_VAR_ARRAY_MAX = 0x00ff;
export const DIF_VAR_OTHER_MIN = 0x0100;
/** First identifier given to user-defined scalars and associative arrays. */
export const DIF_VAR_OTHER_UBASE = 0x0500;
export const DIF_VAR_OTHER_MAX = 0xffff;

/** Built-in variable identifiers (DIF_VAR_*). */
export const DIF_VAR = {
  ARGS: 0x0000,
  REGS: 0x0001,
  UREGS: 0x0002,
  CURTHREAD: 0x0100,
  TIMESTAMP: 0x0101,
  VTIMESTAMP: 0x0102,
  IPL: 0x0103,
  EPID: 0x0104,
  ID: 0x0105,
  ARG0: 0x0106,
  ARG1: 0x0107,
  ARG2: 0x0108,
  ARG3: 0x0109,
  ARG4: 0x010a,
  ARG5: 0x010b,
  ARG6: 0x010c,
  ARG7: 0x010d,
  ARG8: 0x010e,
  ARG9: 0x010f,
  STACKDEPTH: 0x0110,
  CALLER: 0x0111,
  PROBEPROV: 0x0112,
  PROBEMOD: 0x0113,
  PROBEFUNC: 0x0114,
  PROBENAME: 0x0115,
  PID: 0x0116,
  TID: 0x0117,
  EXECNAME: 0x0118,
  ZONENAME: 0x0119,
  WALLTIMESTAMP: 0x011a,
  USTACKDEPTH: 0x011b,
  UCALLER: 0x011c,
  PPID: 0x011d,
  UID: 0x011e,
  GID: 0x011f,
  ERRNO: 0x0120,
  THREADNAME: 0x0121,
  // Beyond illumos. CPU is FreeBSD's number; the others are wdtrace's own,
  // for built-ins that illumos defines through kernel translators
  // (curpsinfo, curlwpsinfo, curcpu, cwd, root): here the framework
  // provides them directly, as values in scratch memory.
  CPU: 0x0200,
  CURPSINFO: 0x0210,
  CURLWPSINFO: 0x0211,
  CURCPU: 0x0212,
  CWD: 0x0213,
  ROOT: 0x0214,
} as const;

/** Subroutine numbers (DIF_SUBR_*), for DIF_OP_CALL. */
export const DIF_SUBR = {
  RAND: 0,
  MUTEX_OWNED: 1,
  MUTEX_OWNER: 2,
  MUTEX_TYPE_ADAPTIVE: 3,
  MUTEX_TYPE_SPIN: 4,
  RW_READ_HELD: 5,
  RW_WRITE_HELD: 6,
  RW_ISWRITER: 7,
  COPYIN: 8,
  COPYINSTR: 9,
  SPECULATION: 10,
  PROGENYOF: 11,
  STRLEN: 12,
  COPYOUT: 13,
  COPYOUTSTR: 14,
  ALLOCA: 15,
  BCOPY: 16,
  COPYINTO: 17,
  MSGDSIZE: 18,
  MSGSIZE: 19,
  GETMAJOR: 20,
  GETMINOR: 21,
  DDI_PATHNAME: 22,
  STRJOIN: 23,
  LLTOSTR: 24,
  BASENAME: 25,
  DIRNAME: 26,
  CLEANPATH: 27,
  STRCHR: 28,
  STRRCHR: 29,
  STRSTR: 30,
  STRTOK: 31,
  SUBSTR: 32,
  INDEX: 33,
  RINDEX: 34,
  HTONS: 35,
  HTONL: 36,
  HTONLL: 37,
  NTOHS: 38,
  NTOHL: 39,
  NTOHLL: 40,
  INET_NTOP: 41,
  INET_NTOA: 42,
  INET_NTOA6: 43,
  TOUPPER: 44,
  TOLOWER: 45,
  GETF: 46,
  JSON: 47,
  STRTOLL: 48,
} as const;

export const DIF_SUBR_MAX = 48;

/** D names of the subroutines, indexed by DIF_SUBR_* (what `dtrace -S` prints after `call`). */
export const DIF_SUBR_NAMES: readonly string[] = [
  'rand',
  'mutex_owned',
  'mutex_owner',
  'mutex_type_adaptive',
  'mutex_type_spin',
  'rw_read_held',
  'rw_write_held',
  'rw_iswriter',
  'copyin',
  'copyinstr',
  'speculation',
  'progenyof',
  'strlen',
  'copyout',
  'copyoutstr',
  'alloca',
  'bcopy',
  'copyinto',
  'msgdsize',
  'msgsize',
  'getmajor',
  'getminor',
  'ddi_pathname',
  'strjoin',
  'lltostr',
  'basename',
  'dirname',
  'cleanpath',
  'strchr',
  'strrchr',
  'strstr',
  'strtok',
  'substr',
  'index',
  'rindex',
  'htons',
  'htonl',
  'htonll',
  'ntohs',
  'ntohl',
  'ntohll',
  'inet_ntop',
  'inet_ntoa',
  'inet_ntoa6',
  'toupper',
  'tolower',
  'getf',
  'json',
  'strtoll',
];

/** Name of a subroutine as `dtrace -S` prints it ("unknown" outside the table, like dtrace_subrstr). */
export function difSubrName(subr: number): string {
  return DIF_SUBR_NAMES[subr] ?? 'unknown';
}

/** DIF type kinds (dtdt_kind). */
export const DIF_TYPE_CTF = 0;
export const DIF_TYPE_STRING = 1;

/** DIF type flags (dtdt_flags). */
export const DIF_TF_BYREF = 0x1;
export const DIF_TF_BYUREF = 0x2;

/** CTF type kinds, used in dtdt_ckind. */
export const CTF_K = {
  UNKNOWN: 0,
  INTEGER: 1,
  FLOAT: 2,
  POINTER: 3,
  ARRAY: 4,
  FUNCTION: 5,
  STRUCT: 6,
  UNION: 7,
  ENUM: 8,
  FORWARD: 9,
  TYPEDEF: 10,
  VOLATILE: 11,
  CONST: 12,
  RESTRICT: 13,
} as const;

/** Variable kinds (dtdv_kind). */
export const DIFV_KIND_ARRAY = 0;
export const DIFV_KIND_SCALAR = 1;

/** Variable scopes (dtdv_scope). */
export const DIFV_SCOPE_GLOBAL = 0;
export const DIFV_SCOPE_THREAD = 1;
export const DIFV_SCOPE_LOCAL = 2;

/** Variable flags (dtdv_flags). */
export const DIFV_F_REF = 0x1;
export const DIFV_F_MOD = 0x2;
