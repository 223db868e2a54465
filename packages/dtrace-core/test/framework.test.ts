import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DIF_OP, DIF_SUBR, difInstrBranch, difInstrFmt, difInstrRet, difInstrSets, difInstrSetx, difInstrCall, difInstrPushts } from '../src/dif/index.js';
import { verifyDifo } from '../src/framework/verify.js';
import { globMatch, parseProbeDescription, ProbeRegistry } from '../src/framework/probes.js';
import { defaultOptions, parseRate, parseSize, setOption, OptionError } from '../src/framework/options.js';
import { Arena } from '../src/framework/arena.js';
import { readString, type VmFiring } from '../src/framework/firing.js';
import { difEmulate, loadDifo } from '../src/framework/vm.js';
import { IdleMachine } from '../src/framework/machine.js';
import { DifFault, DTRACEFLT } from '../src/framework/faults.js';
import { buildDifo, DIF_STRING256 } from '../src/builder.js';

function firing(arena: Arena): VmFiring {
  const globals = new Map<number, bigint | Uint8Array>();
  return {
    machine: new IdleMachine(1),
    arena,
    variables: {
      loadGlobal: (id) => globals.get(id) ?? 0n,
      storeGlobal: (id, v) => void globals.set(id, v),
      loadThread: () => 0n,
      storeThread: () => {},
      loadAssoc: () => 0n,
      storeAssoc: () => {},
    },
    locals: new Map(),
    cpu: 0,
    probeId: 1,
    epid: 1,
    args: [5n, 7n],
    probe: { provider: 'dtrace', module: '', function: '', name: 'BEGIN' },
    timestamp: 0n,
    strsize: 256,
    speculation: () => 0,
    instructions: 0,
  };
}

function exec(buf: number[], opts: Parameters<typeof buildDifo>[1] = {}): { value: bigint; f: VmFiring } {
  const arena = new Arena(4096, 65536);
  const d = buildDifo(buf, opts);
  expect(verifyDifo(d).errors).toEqual([]);
  const ld = loadDifo(d, arena);
  const f = firing(arena);
  return { value: difEmulate(ld, f), f };
}

describe('DIF VM', () => {
  it('does 64-bit arithmetic with wrap-around and signed division', () => {
    const bin = (op: number, a: bigint, b: bigint) => exec([difInstrSetx(0, 1), difInstrSetx(1, 2), difInstrFmt(op, 1, 2, 3), difInstrRet(3)], { inttab: [a, b] }).value;
    expect(bin(DIF_OP.ADD, 0xffffffffffffffffn, 2n)).toBe(1n);
    expect(bin(DIF_OP.SDIV, BigInt.asUintN(64, -7n), 2n)).toBe(BigInt.asUintN(64, -3n));
    expect(bin(DIF_OP.UREM, 17n, 5n)).toBe(2n);
    expect(bin(DIF_OP.SRA, BigInt.asUintN(64, -16n), 2n)).toBe(BigInt.asUintN(64, -4n));
    expect(bin(DIF_OP.SLL, 1n, 63n)).toBe(1n << 63n);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (a, b) => {
        expect(bin(DIF_OP.XOR, a, b)).toBe(a ^ b);
        expect(bin(DIF_OP.MUL, a, b)).toBe(BigInt.asUintN(64, a * b));
      }),
      { numRuns: 50 },
    );
  });
  it('branches on signed and unsigned comparisons', () => {
    const cmp = (br: number, a: bigint, b: bigint) =>
      exec([difInstrSetx(0, 1), difInstrSetx(1, 2), difInstrFmt(DIF_OP.CMP, 1, 2, 0), difInstrBranch(br, 6), difInstrSetx(2, 3), difInstrRet(3), difInstrSetx(3, 3), difInstrRet(3)], { inttab: [a, b, 0n, 1n] }).value;
    const neg1 = BigInt.asUintN(64, -1n);
    expect(cmp(DIF_OP.BL, neg1, 1n)).toBe(1n);
    expect(cmp(DIF_OP.BLU, neg1, 1n)).toBe(0n);
    expect(cmp(DIF_OP.BGU, neg1, 1n)).toBe(1n);
    expect(cmp(DIF_OP.BE, 5n, 5n)).toBe(1n);
    expect(cmp(DIF_OP.BGE, 4n, 5n)).toBe(0n);
  });
  it('runs string subroutines through the tuple stack', () => {
    const call = (subr: number, strings: string[], ints: bigint[] = []) => {
      const buf: number[] = [];
      let reg = 1;
      buf.push(DIF_OP.FLUSHTS << 24);
      strings.forEach((_, i) => {
        buf.push(difInstrSets(strings.slice(0, i).reduce((n, s) => n + new TextEncoder().encode(s).length + 1, 0), reg));
        buf.push(difInstrPushts(DIF_OP.PUSHTR, 1, 0, reg));
      });
      ints.forEach((_, i) => {
        buf.push(difInstrSetx(i, reg));
        buf.push(difInstrPushts(DIF_OP.PUSHTV, 0, 0, reg));
      });
      buf.push(difInstrCall(subr, 2), difInstrRet(2));
      const r = exec(buf, { strings, inttab: ints, rtype: DIF_STRING256 });
      return r;
    };
    let r = call(DIF_SUBR.STRJOIN, ['foo', 'bar']);
    expect(readString(r.f, r.value, 256)).toBe('foobar');
    r = call(DIF_SUBR.STRLEN, ['hello']);
    expect(r.value).toBe(5n);
    r = call(DIF_SUBR.SUBSTR, ['dtrace'], [1n, 3n]);
    expect(readString(r.f, r.value, 256)).toBe('tra');
    r = call(DIF_SUBR.BASENAME, ['/usr/bin/ls']);
    expect(readString(r.f, r.value, 256)).toBe('ls');
    r = call(DIF_SUBR.DIRNAME, ['/usr/bin/ls']);
    expect(readString(r.f, r.value, 256)).toBe('/usr/bin');
    r = call(DIF_SUBR.TOUPPER, ['MiXed']);
    expect(readString(r.f, r.value, 256)).toBe('MIXED');
    r = call(DIF_SUBR.LLTOSTR, [], [BigInt.asUintN(64, -42n)]);
    expect(readString(r.f, r.value, 256)).toBe('-42');
    r = call(DIF_SUBR.JSON, ['{"a":[1,{"b":"x"}]}', 'a[1].b']);
    expect(readString(r.f, r.value, 256)).toBe('x');
    r = call(DIF_SUBR.JSON, ['not json', 'a']);
    expect(r.value).toBe(0n);
    r = call(DIF_SUBR.STRTOK, [',,ab,c', ',']);
    expect(readString(r.f, r.value, 256)).toBe('ab');
    expect(r.f.strtokRest).toBe(',c');
    r = call(DIF_SUBR.HTONS, [], [0x1234n]);
    expect(r.value).toBe(0x3412n);
  });
  it('faults on bad addresses (NOFAULT), misalignment and division by zero with the DIF offset', () => {
    const fault = (buf: number[], inttab: bigint[]) => {
      try {
        exec(buf, { inttab });
      } catch (e) {
        return e as DifFault;
      }
      throw new Error('no fault');
    };
    let e = fault([difInstrSetx(0, 1), difInstrFmt(DIF_OP.LDX, 1, 0, 2), difInstrRet(2)], [0x1000n]);
    expect([e.fault, e.address, e.difOffset]).toEqual([DTRACEFLT.BADADDR, 0x1000n, 4]);
    e = fault([difInstrSetx(0, 1), difInstrFmt(DIF_OP.LDSW, 1, 0, 2), difInstrRet(2)], [0x1002n]);
    expect([e.fault, e.address]).toEqual([DTRACEFLT.BADALIGN, 0x1002n]);
    e = fault([difInstrSetx(0, 1), difInstrSetx(1, 2), difInstrFmt(DIF_OP.UDIV, 1, 2, 3), difInstrRet(3)], [1n, 0n]);
    expect([e.fault, e.difOffset]).toEqual([DTRACEFLT.DIVZERO, 8]);
  });
});

describe('DIF verifier', () => {
  it('rejects backward branches, bad registers, writes to %r0 and missing ret', () => {
    const v = (buf: number[]) => verifyDifo(buildDifo(buf, { inttab: [1n] })).errors;
    expect(v([difInstrBranch(DIF_OP.BA, 0), difInstrRet(1)])).toEqual(['DIF instruction 0: backward branch to 0']);
    expect(v([difInstrSetx(0, 9), difInstrRet(1)])).toEqual(['DIF instruction 0: invalid register rd %r9']);
    expect(v([difInstrSetx(0, 0), difInstrRet(0)])).toEqual(['DIF instruction 0: cannot write to %r0']);
    expect(v([difInstrSetx(0, 1)])).toEqual(['DIF instruction 0: DIF object does not end in ret']);
    expect(v([difInstrSetx(5, 1), difInstrRet(1)])).toEqual(['DIF instruction 0: invalid integer ref 5']);
    expect(v([0xff000000, difInstrRet(1)])).toEqual(['DIF instruction 0: invalid opcode 255']);
  });
  it('never crashes on random instruction words', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength: 20 }), (words) => {
        const r = verifyDifo(buildDifo(words));
        expect(Array.isArray(r.errors)).toBe(true);
      }),
    );
  });
});

describe('probe registry', () => {
  it('matches descriptions with gmatch globbing', () => {
    expect(globMatch('tick-*', 'tick-1s')).toBe(true);
    expect(globMatch('sys_[rw]*', 'sys_read')).toBe(true);
    expect(globMatch('sys_[!rw]*', 'sys_read')).toBe(false);
    expect(globMatch('?EGIN', 'BEGIN')).toBe(true);
    expect(globMatch('', 'anything')).toBe(true);
    expect(globMatch('a\\*', 'a*')).toBe(true);
    expect(parseProbeDescription('BEGIN')).toEqual({ provider: '', module: '', function: '', name: 'BEGIN' });
    expect(parseProbeDescription('syscall::read:entry')).toEqual({ provider: 'syscall', module: '', function: 'read', name: 'entry' });
    expect(() => parseProbeDescription('a:b:c:d:e')).toThrow('too many fields');
    const r = new ProbeRegistry();
    r.registerProvider({
      name: 'demo',
      attributes: { provider: '', module: '', function: '', name: '', args: '' },
      ops: { provide: (reg) => ['entry', 'return'].forEach((n) => reg.createProbe('demo', 'mod', 'fn', n)), enable() {}, disable() {} },
    });
    expect(r.match(parseProbeDescription('demo:::')).map((p) => p.name)).toEqual(['entry', 'return']);
    expect(r.match(parseProbeDescription('d*::fn:ret*')).map((p) => p.id)).toEqual([2]);
  });
});

describe('options', () => {
  it('parses sizes, rates and policies like dt_options.c', () => {
    expect(parseSize('bufsize', '4m')).toBe(4 * 1024 * 1024);
    expect(parseSize('bufsize', '512k')).toBe(512 * 1024);
    expect(parseRate('switchrate', '10hz')).toBe(100_000_000n);
    expect(parseRate('switchrate', '10')).toBe(100_000_000n);
    expect(parseRate('switchrate', '250ms')).toBe(250_000_000n);
    const o = defaultOptions();
    setOption(o, 'bufpolicy', 'ring');
    setOption(o, 'quiet', null);
    setOption(o, 'nspec', '4');
    expect([o.bufpolicy, o.quiet, o.nspec]).toEqual(['ring', true, 4]);
    expect(() => setOption(o, 'bufpolicy', 'spill')).toThrow("failed to set option 'bufpolicy' to 'spill': Invalid value for specified option");
    expect(() => setOption(o, 'nosuch', '1')).toThrow(OptionError);
  });
  it('reads numbers as strtoull with base 0 and boolean values as dt_opt_runtime', () => {
    expect(parseSize('bufsize', '0x1000')).toBe(4096);
    expect(parseSize('bufsize', '010k')).toBe(8 * 1024);
    expect(parseSize('bufsize', '2G')).toBe(2 * 1024 ** 3);
    expect(() => parseSize('bufsize', '4q')).toThrow("failed to set option 'bufsize' to '4q': Invalid value for specified option");
    expect(parseRate('aggrate', '0x10hz')).toBe(62_500_000n);
    const o = defaultOptions();
    for (const [v, want] of [['yes', true], ['off', false], ['Enabled', true], ['disable', false], ['', false], ['on', true], ['0', true], ['unset', false]] as const) {
      setOption(o, 'quiet', v);
      expect([v, o.quiet]).toEqual([v, want]);
    }
    expect(() => setOption(o, 'quiet', 'maybe')).toThrow("failed to set option 'quiet' to 'maybe': Invalid value for specified option");
    setOption(o, 'stackframes', '0x20');
    expect(o.stackframes).toBe(32);
    // Compile-time options dtrace(1) knows are accepted by name.
    for (const name of ['define', 'incdir', 'undef', 'lazyload', 'strip', 'syslibdir']) expect(() => setOption(o, name, 'x')).not.toThrow();
  });
  it('refuses run-time options while tracing is active, as dtrace_setopt (EDT_ACTIVE)', () => {
    const o = defaultOptions();
    for (const name of ['bufsize', 'nspec', 'strsize', 'dynvarsize', 'bufpolicy']) {
      expect(() => setOption(o, name, '1', true)).toThrow(`failed to set option '${name}' to '1': Operation illegal when tracing is active`);
    }
    setOption(o, 'quiet', 'yes', true);
    setOption(o, 'switchrate', '10hz', true);
    setOption(o, 'aggsortkey', null, true);
    expect([o.quiet, o.switchrate, o.aggsortkey]).toEqual([true, 100_000_000n, true]);
    setOption(o, 'bufsize', '8k');
    expect(o.bufsize).toBe(8192);
  });
});
