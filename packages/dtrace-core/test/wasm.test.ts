// The WebAssembly backend against the interpreter: generated DIF programs of
// ALU, compare, branch, set and call-out instructions run both ways must give
// the same value, or the same fault at the same DIF offset, after the same
// number of instructions.
import { describe, expect, it } from 'vitest';
import { Arena } from '../src/framework/arena.js';
import { DifFault, DTRACEFLT } from '../src/framework/faults.js';
import type { ProbeArgumentSource, VmFiring } from '../src/framework/firing.js';
import { IdleMachine } from '../src/framework/machine.js';
import { defaultOptions, OptionError, setOption } from '../src/framework/options.js';
import { difEmulate, loadDifo, type LoadedDifo } from '../src/framework/vm.js';
import { MODULE_LIMIT, difoModuleBytes, wasmCompile } from '../src/framework/wasm.js';
import { buildDifo } from '../src/builder.js';
import { DIF_OP } from '../src/dif/opcodes.js';
import { DIF_VAR } from '../src/dif/constants.js';
import { difInstrBranch, difInstrFmt, difInstrLdv, difInstrRet, difInstrSets, difInstrSetx, difInstrTst } from '../src/dif/instr.js';

function firing(arena: Arena, args: readonly bigint[] = [11n, 22n], restArgs?: ProbeArgumentSource): VmFiring {
  const none = (): never => {
    throw new Error('no variables in these programs');
  };
  return {
    machine: new IdleMachine(2),
    arena,
    variables: { loadGlobal: none, storeGlobal: none, loadThread: none, storeThread: none, loadAssoc: none, storeAssoc: none },
    locals: new Map(),
    cpu: 1,
    probeId: 7,
    epid: 3,
    args,
    restArgs,
    probe: { provider: 'test', module: 'kernel', function: 'f', name: 'fire' },
    timestamp: 5n,
    strsize: 256,
    speculation: () => 0,
    instructions: 0,
  };
}

type Outcome = { value: bigint } | { fault: number; address: bigint; offset: number };

function outcome(run: () => bigint): Outcome {
  try {
    return { value: run() };
  } catch (e) {
    if (!(e instanceof DifFault)) throw e;
    return { fault: e.fault, address: e.address, offset: e.difOffset };
  }
}

/** Runs `ld` both ways; returns both outcomes and instruction counts. */
function both(ld: LoadedDifo, arena: Arena, args?: readonly bigint[], rest?: ProbeArgumentSource) {
  const compiled = wasmCompile(ld);
  expect(compiled).toBeDefined();
  const fi = firing(arena, args, rest);
  const fw = firing(arena, args, rest);
  arena.resetScratch();
  const dif = outcome(() => difEmulate(ld, fi));
  arena.resetScratch();
  const wasm = outcome(() => compiled!(fw));
  return { dif, wasm, difCount: fi.instructions, wasmCount: fw.instructions };
}

/** A small deterministic generator (xorshift). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

const EDGES = [0n, 1n, 2n, 3n, 7n, 63n, 64n, 65n, 0xffn, 0x7fffffffn, 0x80000000n, 0xffffffffn, 0x7fffffffffffffffn, 0x8000000000000000n, 0xffffffffffffffffn, 0xfffffffffffffffen, 0x123456789abcdef0n];
const ALU = [DIF_OP.OR, DIF_OP.XOR, DIF_OP.AND, DIF_OP.SLL, DIF_OP.SRL, DIF_OP.SRA, DIF_OP.SUB, DIF_OP.ADD, DIF_OP.MUL, DIF_OP.SDIV, DIF_OP.UDIV, DIF_OP.SREM, DIF_OP.UREM];
const BRANCHES = [DIF_OP.BA, DIF_OP.BE, DIF_OP.BNE, DIF_OP.BG, DIF_OP.BGU, DIF_OP.BGE, DIF_OP.BGEU, DIF_OP.BL, DIF_OP.BLU, DIF_OP.BLE, DIF_OP.BLEU];

const BUILTINS = [
  DIF_VAR.EPID, DIF_VAR.CPU, DIF_VAR.ID, DIF_VAR.IPL, DIF_VAR.TIMESTAMP, DIF_VAR.PID, DIF_VAR.PPID, DIF_VAR.TID, DIF_VAR.UID, DIF_VAR.GID, DIF_VAR.ERRNO,
  DIF_VAR.ARG0, DIF_VAR.ARG1, DIF_VAR.ARG2, DIF_VAR.ARG3, DIF_VAR.ARG9,
];

const LOADS = [DIF_OP.LDSB, DIF_OP.LDSH, DIF_OP.LDSW, DIF_OP.LDUB, DIF_OP.LDUH, DIF_OP.LDUW, DIF_OP.LDX, DIF_OP.RLDSB, DIF_OP.RLDX, DIF_OP.ULDUB, DIF_OP.ULDX];

/** A random verified-shape DIFO: constants, ALU, compares and forward branches, a few call-outs, ending in ret. */
function randomDifo(seed: number) {
  const r = rng(seed);
  const n = 8 + r(40);
  const inttab = Array.from({ length: 8 }, () => (r(3) === 0 ? BigInt(r(1 << 30)) * BigInt(r(1 << 30)) + BigInt(r(100)) : EDGES[r(EDGES.length)]!));
  const reg = (): number => 1 + r(7);
  const buf: number[] = [];
  for (let i = 0; i < 6; i++) buf.push(difInstrSetx(r(inttab.length), reg()));
  while (buf.length < n - 1) {
    const pc = buf.length;
    switch (r(10)) {
      case 0: case 1: case 2: case 3: buf.push(difInstrFmt(ALU[r(ALU.length)]!, reg(), reg(), reg())); break;
      case 4: buf.push(r(2) ? difInstrFmt(DIF_OP.NOT, reg(), 0, reg()) : difInstrFmt(DIF_OP.MOV, reg(), 0, reg())); break;
      case 5: buf.push(r(3) ? difInstrFmt(DIF_OP.CMP, reg(), reg(), 0) : difInstrTst(reg())); break;
      case 6: case 7: {
        // A forward branch, at most to the final ret.
        const target = pc + 1 + r(Math.max(1, n - 1 - pc));
        buf.push(difInstrBranch(BRANCHES[r(BRANCHES.length)]!, Math.min(target, n - 1)));
        break;
      }
      case 8: buf.push(difInstrSetx(r(inttab.length), reg())); break;
      case 9:
        // Builtins the translation reads from the firing block (arguments passed and not), args[] with an index that may fault, strings.
        switch (r(4)) {
          case 0: buf.push(difInstrLdv(DIF_OP.LDGS, BUILTINS[r(BUILTINS.length)]!, reg())); break;
          case 1: buf.push(difInstrFmt(DIF_OP.LDGA, DIF_VAR.ARGS, reg(), reg())); break;
          // A load: of the string table (sets), misaligned, or of no memory (faults).
          case 2: buf.push(difInstrFmt(LOADS[r(LOADS.length)]!, reg(), 0, reg())); break;
          default: buf.push(difInstrSets(0, reg()));
        }
        break;
    }
  }
  buf.push(difInstrRet(reg()));
  return buildDifo(buf, { inttab, strings: ['s'] });
}

describe('WebAssembly backend: equal to the interpreter', () => {
  it('gives the same value or fault, at the same DIF offset, after as many instructions, on 3000 generated programs', () => {
    const arena = new Arena(64 * 1024, 64 * 1024);
    let faults = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const ld = loadDifo(randomDifo(seed), arena);
      const r = both(ld, arena);
      expect(r.wasm, `seed ${seed}`).toEqual(r.dif);
      expect(r.wasmCount, `seed ${seed}`).toBe(r.difCount);
      if ('fault' in r.dif) faults++;
    }
    // Division by zero is among the generated outcomes.
    expect(faults).toBeGreaterThan(50);
  });

  it('divides INT64_MIN by -1 as DIF does (no WebAssembly trap) and faults on zero divisors with the offset', () => {
    const arena = new Arena(64 * 1024, 64 * 1024);
    const div = (op: number, a: bigint, b: bigint) =>
      both(loadDifo(buildDifo([difInstrSetx(0, 1), difInstrSetx(1, 2), difInstrFmt(op, 1, 2, 3), difInstrRet(3)], { inttab: [a, b] }), arena), arena);
    const MIN = 0x8000000000000000n, M1 = 0xffffffffffffffffn;
    expect(div(DIF_OP.SDIV, MIN, M1).wasm).toEqual({ value: MIN });
    expect(div(DIF_OP.SREM, MIN, M1).wasm).toEqual({ value: 0n });
    expect(div(DIF_OP.UDIV, M1, 2n).wasm).toEqual({ value: 0x7fffffffffffffffn });
    for (const op of [DIF_OP.SDIV, DIF_OP.UDIV, DIF_OP.SREM, DIF_OP.UREM]) {
      const r = div(op, 5n, 0n);
      expect(r.wasm).toEqual({ fault: DTRACEFLT.DIVZERO, address: 0n, offset: 8 });
      expect(r.dif).toEqual(r.wasm);
      expect(r.wasmCount).toBe(3);
    }
  });

  it('reports a called-out instruction\'s fault at its offset (args[] out of range)', () => {
    const arena = new Arena(64 * 1024, 64 * 1024);
    const ld = loadDifo(buildDifo([difInstrSetx(0, 2), difInstrFmt(DIF_OP.LDGA, DIF_VAR.ARGS, 2, 1), difInstrRet(1)], { inttab: [12n] }), arena);
    const r = both(ld, arena);
    expect(r.wasm).toEqual({ fault: DTRACEFLT.ILLOP, address: 0n, offset: 4 });
    expect(r.dif).toEqual(r.wasm);
  });

  it('reads the arguments a provider gives lazily (none or some passed) as the interpreter does: argN, argN after a higher one, args[i]', () => {
    const arena = new Arena(64 * 1024, 64 * 1024);
    // A lazy source as fbt's: the probe has 8 arguments, the rest read 0.
    let reads = 0;
    const lazy: ProbeArgumentSource = { arg: (i) => (reads++, i < 8 ? 0x100n + BigInt(i) : 0n) };
    for (const passed of [[], [11n, 22n]]) {
      const expected = (i: number): bigint => (i < passed.length ? passed[i]! : i < 8 ? 0x100n + BigInt(i) : 0n);
      for (let n = 0; n < 10; n++) {
        const programs: [number[], bigint[], bigint][] = [
          [[difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG0 + n, 1), difInstrRet(1)], [], expected(n)],
          [[difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG9, 2), difInstrLdv(DIF_OP.LDGS, DIF_VAR.ARG0 + n, 1), difInstrFmt(DIF_OP.ADD, 1, 2, 1), difInstrRet(1)], [], expected(9) + expected(n)],
          [[difInstrSetx(0, 2), difInstrFmt(DIF_OP.LDGA, DIF_VAR.ARGS, 2, 1), difInstrRet(1)], [BigInt(n)], expected(n)],
        ];
        for (const [buf, inttab, value] of programs) {
          const r = both(loadDifo(buildDifo(buf, { inttab }), arena), arena, passed, lazy);
          expect(r.wasm, `passed ${passed.length}, n ${n}: ${buf.length} instructions`).toEqual({ value });
          expect(r.dif).toEqual(r.wasm);
          expect(r.wasmCount).toBe(r.difCount);
        }
      }
    }
    expect(reads).toBeGreaterThan(0);
  });

  it('leaves a DIFO whose module exceeds the limit to the interpreter', () => {
    const arena = new Arena(64 * 1024, 64 * 1024);
    const buf: number[] = [difInstrSetx(0, 1)];
    for (let i = 0; i < 1000; i++) buf.push(difInstrFmt(DIF_OP.ADD, 1, 1, 1));
    buf.push(difInstrRet(1));
    const ld = loadDifo(buildDifo(buf, { inttab: [1n] }), arena);
    expect(difoModuleBytes(ld).length).toBeGreaterThan(MODULE_LIMIT);
    expect(wasmCompile(ld)).toBeUndefined();
  });
});

describe('-x backend', () => {
  it('takes dif or wasm, wasm by default, and refuses other values with dtrace\'s wording', () => {
    const o = defaultOptions();
    expect(o.backend).toBe('wasm');
    setOption(o, 'backend', 'dif');
    expect(o.backend).toBe('dif');
    setOption(o, 'backend', 'wasm');
    expect(o.backend).toBe('wasm');
    expect(() => setOption(o, 'backend', 'jit')).toThrow(new OptionError("failed to set option 'backend' to 'jit': Invalid value for specified option"));
    expect(() => setOption(o, 'backend', null)).toThrow("failed to set option 'backend': Option requires a value");
    expect(() => setOption(o, 'backend', 'wasm', true)).toThrow("failed to set option 'backend' to 'wasm': Operation illegal when tracing is active");
  });
});
