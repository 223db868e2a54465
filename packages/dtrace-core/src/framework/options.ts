// Run-time and consumer options (-x name=value, #pragma D option), after
// libdtrace's dt_options.c: sizes take k/m/g/t suffixes, rates take
// ns/us/ms/s/sec/m/min/h/hour/d/day/hz suffixes (a bare number is a
// frequency in hertz), bufpolicy is switch/fill/ring, and boolean options
// are set by name alone.

export interface DTraceOptions {
  bufsize: number;
  bufpolicy: 'switch' | 'fill' | 'ring';
  /** Nanoseconds between buffer switches (consumption) — switchrate. */
  switchrate: bigint;
  aggsize: number;
  aggrate: bigint;
  dynvarsize: number;
  cleanrate: bigint;
  strsize: number;
  nspec: number;
  specsize: number;
  stackframes: number;
  ustackframes: number;
  stackindent: number;
  quiet: boolean;
  flowindent: boolean;
  destructive: boolean;
  aggsortkey: boolean;
  aggsortrev: boolean;
  aggsortpos: number;
  aggsortkeypos: number;
  rawbytes: boolean;
  errtags: boolean;
  /** Prefix drop messages with their DTRACEDROP_* tag. */
  droptags: boolean;
  /** Scratch space per CPU for string results (bytes). */
  scratchsize: number;
  statusrate: bigint;
  /** -Z: descriptions may match no probes. */
  zdefs: boolean;
  /** What runs the DIF of enabled clauses: the interpreter (dif) or its WebAssembly translation (wasm). */
  backend: 'dif' | 'wasm';
}

export function defaultOptions(): DTraceOptions {
  return {
    bufsize: 4 * 1024 * 1024,
    bufpolicy: 'switch',
    switchrate: 1_000_000_000n,
    aggsize: 4 * 1024 * 1024,
    aggrate: 1_000_000_000n,
    dynvarsize: 1024 * 1024,
    // dtrace_cleanrate_default: 101 Hz.
    cleanrate: 9_900_990n,
    strsize: 256,
    nspec: 1,
    specsize: 32 * 1024,
    stackframes: 20,
    ustackframes: 20,
    stackindent: 14,
    quiet: false,
    flowindent: false,
    destructive: false,
    aggsortkey: false,
    aggsortrev: false,
    aggsortpos: 0,
    aggsortkeypos: 0,
    rawbytes: false,
    errtags: false,
    droptags: false,
    scratchsize: 64 * 1024,
    statusrate: 1_000_000_000n,
    zdefs: false,
    backend: 'wasm',
  };
}

export class OptionError extends Error {}

/** strtoull(value, &end, 0) over the whole text: decimal, 0x hexadecimal or 0 octal; undefined when anything is left over. */
function parseNumber(text: string): bigint | undefined {
  const t = text.trim();
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return BigInt(t);
  if (/^0[0-7]+$/.test(t)) return BigInt('0o' + t.slice(1));
  if (/^\d+$/.test(t)) return BigInt(t);
  return undefined;
}

const badValue = (name: string, value: string): OptionError => new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);

/** Parses a size as dt_opt_size: a number (decimal, 0x, 0) with an optional k, m, g or t suffix: "4m", "512k", "0x1000". */
export function parseSize(name: string, value: string): number {
  const t = value.trim();
  const units: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
  const last = t.slice(-1).toLowerCase();
  const mult = units[last] ?? 1;
  const n = parseNumber(mult > 1 ? t.slice(0, -1) : t);
  if (n === undefined) throw badValue(name, value);
  return Number(n) * mult;
}

/**
 * A boolean option's value as dt_opt_runtime reads it: none or yes, enable,
 * enabled, true, on, set turn it on; no, disable, disabled, false, off,
 * unset or the empty string turn it off; any number sets it — even 0, since
 * only DTRACEOPT_UNSET means off. Undefined for any other value.
 */
export function booleanOptionValue(value: string | null): boolean | undefined {
  if (value === null) return true;
  if (value === '') return false;
  const v = value.toLowerCase();
  if (['yes', 'enable', 'enabled', 'true', 'on', 'set'].includes(v)) return true;
  if (['no', 'disable', 'disabled', 'false', 'off', 'unset'].includes(v)) return false;
  if (parseNumber(value) !== undefined) return true;
  return undefined;
}

function parseBoolean(name: string, value: string | null): boolean {
  const on = booleanOptionValue(value);
  if (on === undefined) throw badValue(name, value ?? '');
  return on;
}

const RATE_UNITS: Record<string, bigint> = {
  ns: 1n, nsec: 1n, us: 1000n, usec: 1000n, ms: 1_000_000n, msec: 1_000_000n,
  s: 1_000_000_000n, sec: 1_000_000_000n, m: 60_000_000_000n, min: 60_000_000_000n,
  h: 3_600_000_000_000n, hour: 3_600_000_000_000n, d: 86_400_000_000_000n, day: 86_400_000_000_000n,
};

/** Parses a rate into nanoseconds between events: "10hz", "1s", "500ms", "100" (= 100hz). */
export function parseRate(name: string, value: string): bigint {
  const m = /^(0[xX][0-9a-fA-F]+|\d+)([a-z]*)$/i.exec(value.trim());
  const n = m ? parseNumber(m[1]!) : undefined;
  if (!m || n === undefined || n === 0n) throw badValue(name, value);
  const unit = m[2]!.toLowerCase();
  if (unit === '' || unit === 'hz') return 1_000_000_000n / n;
  const mult = RATE_UNITS[unit];
  if (mult === undefined) throw new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);
  return n * mult;
}

const SIZE_OPTIONS = new Set(['bufsize', 'aggsize', 'dynvarsize', 'strsize', 'specsize', 'scratchsize']);
const RATE_OPTIONS = new Set(['switchrate', 'aggrate', 'cleanrate', 'statusrate']);
const COUNT_OPTIONS = new Set(['nspec', 'stackframes', 'ustackframes', 'stackindent', 'aggsortpos', 'aggsortkeypos']);
const BOOLEAN_OPTIONS = new Set(['quiet', 'flowindent', 'destructive', 'aggsortkey', 'aggsortrev', 'rawbytes', 'errtags', 'droptags', 'zdefs']);
/** Options accepted for compatibility that change nothing on this machine. */
const ACCEPTED_OPTIONS = new Set(['cpu', 'grabanon', 'jstackframes', 'jstackstrsize', 'nolibs', 'defaultargs', 'linkmode', 'encoding', 'aggpercpu', 'temporal', 'agghist', 'aggpack', 'aggzoom', 'bufresize', 'ctypes', 'dtypes', 'verbose', 'evaltime', 'version', 'disasm', 'debug', 'core', 'amin', 'argref', 'cpp', 'cpphdrs', 'cpppath', 'iregs', 'knodefs', 'ld', 'ldpath', 'libdir', 'pgmax', 'pspec', 'stdc', 'tree', 'tregs', 'udefs', 'unodefs', 'userland', 'define', 'undef', 'incdir', 'kdefs', 'late', 'lazyload', 'linktype', 'strip', 'syslibdir']);

export function isKnownOption(name: string): boolean {
  return SIZE_OPTIONS.has(name) || RATE_OPTIONS.has(name) || COUNT_OPTIONS.has(name) || BOOLEAN_OPTIONS.has(name) || name === 'bufpolicy' || name === 'backend' || ACCEPTED_OPTIONS.has(name);
}

/**
 * dt_options.c's run-time options (_dtrace_rtoptions): they size or shape
 * what dtrace_go sets up, so once tracing is active they cannot change
 * (EDT_ACTIVE); the dynamic run-time options (quiet, switchrate, aggrate,
 * the aggsort options ...) and the compile-time ones can.
 */
const RUNTIME_OPTIONS = new Set([
  'aggsize', 'backend', 'bufsize', 'bufpolicy', 'bufresize', 'cleanrate', 'cpu', 'destructive', 'dynvarsize', 'grabanon',
  'jstackframes', 'jstackstrsize', 'nspec', 'specsize', 'stackframes', 'statusrate', 'strsize', 'ustackframes', 'temporal',
]);

/**
 * Applies one option (value null for `-x quiet`); throws OptionError worded
 * like dtrace(1). `active` is set while tracing (setopt()): a run-time
 * option then fails as dtrace_setopt fails it.
 */
export function setOption(opts: DTraceOptions, name: string, value: string | null, active = false): void {
  const o = opts as unknown as Record<string, unknown>;
  if (active && RUNTIME_OPTIONS.has(name)) {
    throw new OptionError(`failed to set option '${name}'${value === null ? '' : ` to '${value}'`}: Operation illegal when tracing is active`);
  }
  if (BOOLEAN_OPTIONS.has(name)) {
    o[name] = parseBoolean(name, value);
    return;
  }
  if (!isKnownOption(name)) throw new OptionError(`failed to set option '${name}'${value === null ? '' : ` to '${value}'`}: Invalid option name`);
  if (ACCEPTED_OPTIONS.has(name)) return;
  if (value === null) throw new OptionError(`failed to set option '${name}': Option requires a value`);
  if (name === 'bufpolicy') {
    if (value !== 'switch' && value !== 'fill' && value !== 'ring') {
      throw new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);
    }
    opts.bufpolicy = value;
  } else if (name === 'backend') {
    if (value !== 'dif' && value !== 'wasm') throw badValue(name, value);
    opts.backend = value;
  } else if (SIZE_OPTIONS.has(name)) o[name] = parseSize(name, value);
  else if (RATE_OPTIONS.has(name)) o[name] = parseRate(name, value);
  else {
    const n = parseNumber(value);
    if (n === undefined) throw badValue(name, value);
    o[name] = Number(n);
  }
}
