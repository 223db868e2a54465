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
}

export function defaultOptions(): DTraceOptions {
  return {
    bufsize: 4 * 1024 * 1024,
    bufpolicy: 'switch',
    switchrate: 1_000_000_000n,
    aggsize: 4 * 1024 * 1024,
    aggrate: 1_000_000_000n,
    dynvarsize: 1024 * 1024,
    cleanrate: 10_000_000n,
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
  };
}

export class OptionError extends Error {}

/** Parses a size: "4m", "512k", "1024". */
export function parseSize(name: string, value: string): number {
  const m = /^(\d+)([kmgt]?)$/i.exec(value.trim());
  if (!m) throw new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't'];
  return Number(m[1]) * mult;
}

const RATE_UNITS: Record<string, bigint> = {
  ns: 1n, nsec: 1n, us: 1000n, usec: 1000n, ms: 1_000_000n, msec: 1_000_000n,
  s: 1_000_000_000n, sec: 1_000_000_000n, m: 60_000_000_000n, min: 60_000_000_000n,
  h: 3_600_000_000_000n, hour: 3_600_000_000_000n, d: 86_400_000_000_000n, day: 86_400_000_000_000n,
};

/** Parses a rate into nanoseconds between events: "10hz", "1s", "500ms", "100" (= 100hz). */
export function parseRate(name: string, value: string): bigint {
  const m = /^(\d+)([a-z]*)$/i.exec(value.trim());
  if (!m || BigInt(m[1]!) === 0n) throw new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);
  const n = BigInt(m[1]!);
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
const ACCEPTED_OPTIONS = new Set(['cpu', 'grabanon', 'jstackframes', 'jstackstrsize', 'nolibs', 'defaultargs', 'linkmode', 'encoding', 'aggpercpu', 'temporal', 'agghist', 'aggpack', 'aggzoom', 'bufresize', 'ctypes', 'dtypes', 'verbose', 'evaltime', 'version', 'disasm', 'debug', 'core', 'amin', 'argref', 'cpp', 'cpphdrs', 'cpppath', 'iregs', 'knodefs', 'ld', 'ldpath', 'libdir', 'pgmax', 'pspec', 'stdc', 'tree', 'tregs', 'udefs', 'unodefs', 'userland']);

export function isKnownOption(name: string): boolean {
  return SIZE_OPTIONS.has(name) || RATE_OPTIONS.has(name) || COUNT_OPTIONS.has(name) || BOOLEAN_OPTIONS.has(name) || name === 'bufpolicy' || ACCEPTED_OPTIONS.has(name);
}

/** Applies one option (value null for `-x quiet`); throws OptionError worded like dtrace(1). */
export function setOption(opts: DTraceOptions, name: string, value: string | null): void {
  const o = opts as unknown as Record<string, unknown>;
  if (BOOLEAN_OPTIONS.has(name)) {
    if (value !== null && value !== '' && !/^(1|set|true)$/i.test(value)) {
      if (/^(0|unset|false)$/i.test(value)) o[name] = false;
      else throw new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);
      return;
    }
    o[name] = true;
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
  } else if (SIZE_OPTIONS.has(name)) o[name] = parseSize(name, value);
  else if (RATE_OPTIONS.has(name)) o[name] = parseRate(name, value);
  else {
    if (!/^\d+$/.test(value)) throw new OptionError(`failed to set option '${name}' to '${value}': Invalid value for specified option`);
    o[name] = Number(value);
  }
}
