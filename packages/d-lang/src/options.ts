// dtrace(1)'s options as the compiler knows them: each name with the kind of
// value it takes, and the syntax of size and time values (libdtrace's
// dt_opt_size and dt_opt_rate). Read by the pragmas pass and the code
// generator.

export type OptionKind = 'bool' | 'size' | 'time' | 'int' | 'string';

/** dtrace(1) options: compile-time and run-time, with the kind of value each takes. */
export const DTRACE_OPTIONS: ReadonlyMap<string, OptionKind> = new Map<string, OptionKind>([
  ['aggpack', 'bool'],
  ['aggrate', 'time'],
  ['aggsize', 'size'],
  ['aggsortkey', 'bool'],
  ['aggsortkeypos', 'int'],
  ['aggsortpos', 'int'],
  ['aggsortrev', 'bool'],
  ['aggzoom', 'bool'],
  ['amin', 'string'],
  ['argref', 'bool'],
  /** wdtrace's own: what runs DIF (dif, the interpreter; wasm, its WebAssembly translation). */
  ['backend', 'string'],
  ['bufpolicy', 'string'],
  ['bufresize', 'string'],
  ['bufsize', 'size'],
  ['cleanrate', 'time'],
  ['core', 'string'],
  ['cpp', 'bool'],
  ['cpphdrs', 'bool'],
  ['cpppath', 'string'],
  ['cpu', 'int'],
  ['ctypes', 'string'],
  ['defaultargs', 'bool'],
  ['define', 'string'],
  ['destructive', 'bool'],
  ['dtypes', 'string'],
  ['debug', 'bool'],
  ['droptags', 'bool'],
  ['dynvarsize', 'size'],
  ['empty', 'bool'],
  ['encoding', 'string'],
  ['errtags', 'bool'],
  ['evaltime', 'string'],
  ['flowindent', 'bool'],
  ['grabanon', 'bool'],
  ['incdir', 'string'],
  ['iregs', 'int'],
  ['jstackframes', 'int'],
  ['jstackstrsize', 'size'],
  ['kdefs', 'bool'],
  ['knodefs', 'bool'],
  ['late', 'string'],
  ['lazyload', 'bool'],
  ['ldpath', 'string'],
  ['libdir', 'string'],
  ['linkmode', 'string'],
  ['linktype', 'string'],
  ['nolibs', 'bool'],
  ['nspec', 'int'],
  ['pgmax', 'int'],
  ['pspec', 'bool'],
  ['quiet', 'bool'],
  ['rawbytes', 'bool'],
  ['specsize', 'size'],
  ['stackframes', 'int'],
  ['stackindent', 'int'],
  ['statusrate', 'time'],
  ['stdc', 'string'],
  ['strip', 'bool'],
  ['strsize', 'size'],
  ['switchrate', 'time'],
  ['syslibdir', 'string'],
  ['temporal', 'bool'],
  ['tree', 'int'],
  ['tregs', 'int'],
  ['udefs', 'bool'],
  ['undef', 'string'],
  ['unodefs', 'bool'],
  ['ustackframes', 'int'],
  ['verbose', 'bool'],
  ['version', 'string'],
  ['zdefs', 'bool'],
]);

/** Parse a size option value ("4m", "512k", "1g", "100") to bytes, or undefined if malformed. */
export function parseSizeOption(v: string): number | undefined {
  const m = /^(\d+)([kmgt]?)$/i.exec(v);
  if (m === null) return undefined;
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't'];
  return Number(m[1]) * mult;
}

/** Parse a time/rate option ("10hz", "1s", "100ms", "500us", "50ns", "2") to nanoseconds. */
export function parseTimeOption(v: string): number | undefined {
  const m = /^(\d+)(ns|nsec|us|usec|ms|msec|s|sec|m|min|h|hour|d|day|hz|)$/i.exec(v);
  if (m === null) return undefined;
  const n = Number(m[1]);
  switch (m[2]!.toLowerCase()) {
    case 'hz':
      return n === 0 ? undefined : 1e9 / n;
    case 'ns':
    case 'nsec':
    case '':
      return n;
    case 'us':
    case 'usec':
      return n * 1e3;
    case 'ms':
    case 'msec':
      return n * 1e6;
    case 's':
    case 'sec':
      return n * 1e9;
    case 'm':
    case 'min':
      return n * 60e9;
    case 'h':
    case 'hour':
      return n * 3600e9;
    default:
      return n * 86400e9;
  }
}
