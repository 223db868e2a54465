// Generated DIF computes what D means: random integer expressions over
// arg0..arg3 are compiled, run on a small DIF evaluator (ALU, branches,
// constants, built-in and clause-local variables: the subset these
// expressions use) and compared with 64-bit reference arithmetic. Deep
// expressions exercise register spilling.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIF_OP, DIF_VAR, type Difo, difInstrInteger, difInstrLabel, difInstrOp, difInstrR1, difInstrR2, difInstrRd, difInstrVar } from '@wdtrace/dtrace-core/dif';
import { compile, listDif } from '../src/index.js';

const s64 = (v: bigint): bigint => BigInt.asIntN(64, v);

function run(d: Difo, args: bigint[]): bigint {
  const r = new Array<bigint>(8).fill(0n);
  const locals = new Map<number, bigint>();
  let cc = 0n; // last comparison: sign of (a - b) as signed, plus unsigned order
  let ccu = 0;
  for (let pc = 0; pc < d.buf.length; pc++) {
    const i = d.buf[pc]!;
    const op = difInstrOp(i);
    const r1 = difInstrR1(i);
    const r2 = difInstrR2(i);
    const rd = difInstrRd(i);
    const a = r[r1]!;
    const b = r[r2]!;
    const set = (v: bigint): void => {
      if (rd !== 0) r[rd] = s64(v);
    };
    switch (op) {
      case DIF_OP.OR: set(a | b); break;
      case DIF_OP.XOR: set(a ^ b); break;
      case DIF_OP.AND: set(a & b); break;
      case DIF_OP.SLL: set(a << (BigInt.asUintN(64, b) & 63n)); break;
      case DIF_OP.SRL: set(BigInt.asUintN(64, a) >> (BigInt.asUintN(64, b) & 63n)); break;
      case DIF_OP.SRA: set(a >> (BigInt.asUintN(64, b) & 63n)); break;
      case DIF_OP.SUB: set(a - b); break;
      case DIF_OP.ADD: set(a + b); break;
      case DIF_OP.MUL: set(a * b); break;
      case DIF_OP.SDIV: set(a / b); break;
      case DIF_OP.SREM: set(a % b); break;
      case DIF_OP.NOT: set(~a); break;
      case DIF_OP.MOV: set(a); break;
      case DIF_OP.CMP:
        cc = a < b ? -1n : a > b ? 1n : 0n;
        ccu = BigInt.asUintN(64, a) < BigInt.asUintN(64, b) ? -1 : BigInt.asUintN(64, a) > BigInt.asUintN(64, b) ? 1 : 0;
        break;
      case DIF_OP.TST:
        cc = a === 0n ? 0n : 1n;
        ccu = a === 0n ? 0 : 1;
        break;
      case DIF_OP.NOP: break;
      case DIF_OP.SETX: set(BigInt.asIntN(64, d.inttab[difInstrInteger(i)]!)); break;
      case DIF_OP.LDGS: {
        const v = difInstrVar(i);
        if (v >= DIF_VAR.ARG0 && v <= DIF_VAR.ARG9) set(args[v - DIF_VAR.ARG0] ?? 0n);
        else throw new Error(`ldgs ${v}`);
        break;
      }
      case DIF_OP.LDLS: set(locals.get(difInstrVar(i)) ?? 0n); break;
      case DIF_OP.STLS: locals.set(difInstrVar(i), r[rd]!); break;
      case DIF_OP.RET: return r[rd]!;
      default: {
        const target = difInstrLabel(i) - 1;
        const taken =
          op === DIF_OP.BA ? true
          : op === DIF_OP.BE ? cc === 0n
          : op === DIF_OP.BNE ? cc !== 0n
          : op === DIF_OP.BG ? cc > 0n
          : op === DIF_OP.BGE ? cc >= 0n
          : op === DIF_OP.BL ? cc < 0n
          : op === DIF_OP.BLE ? cc <= 0n
          : op === DIF_OP.BGU ? ccu > 0
          : op === DIF_OP.BGEU ? ccu >= 0
          : op === DIF_OP.BLU ? ccu < 0
          : op === DIF_OP.BLEU ? ccu <= 0
          : (() => { throw new Error(`opcode ${op}`); })();
        if (taken) pc = target;
      }
    }
  }
  throw new Error('no ret');
}

type Node = { src: string; eval: (a: bigint[]) => bigint };

const leaf: fc.Arbitrary<Node> = fc.oneof(
  fc.constantFrom(0, 1, 2, 3).map((n) => ({ src: `arg${n}`, eval: (a: bigint[]) => a[n]! })),
  fc.bigInt({ min: -1000n, max: 1000n }).map((v) => ({ src: v < 0n ? `(${v}LL)` : `${v}LL`, eval: () => v })),
);

const bin = (op: string, f: (x: bigint, y: bigint) => bigint) => (l: Node, r: Node): Node => ({
  src: `(${l.src} ${op} ${r.src})`,
  eval: (a) => s64(f(l.eval(a), r.eval(a))),
});

const expr: fc.Arbitrary<Node> = fc.letrec((tie) => ({
  e: fc.oneof(
    { depthSize: 'medium', withCrossShrink: true },
    leaf,
    fc.tuple(tie('e') as fc.Arbitrary<Node>, fc.constantFrom<[string, (x: bigint, y: bigint) => bigint]>(
      ['+', (x, y) => x + y],
      ['-', (x, y) => x - y],
      ['*', (x, y) => x * y],
      ['&', (x, y) => x & y],
      ['|', (x, y) => x | y],
      ['^', (x, y) => x ^ y],
      ['==', (x, y) => (x === y ? 1n : 0n)],
      ['!=', (x, y) => (x !== y ? 1n : 0n)],
      ['<', (x, y) => (x < y ? 1n : 0n)],
      ['>=', (x, y) => (x >= y ? 1n : 0n)],
      ['&&', (x, y) => (x !== 0n && y !== 0n ? 1n : 0n)],
      ['||', (x, y) => (x !== 0n || y !== 0n ? 1n : 0n)],
    ), tie('e') as fc.Arbitrary<Node>).map(([l, [op, f], r]) => bin(op, f)(l, r)),
    (tie('e') as fc.Arbitrary<Node>).map((x) => ({ src: `(-${x.src})`, eval: (a: bigint[]) => s64(-x.eval(a)) })),
    (tie('e') as fc.Arbitrary<Node>).map((x) => ({ src: `(!${x.src})`, eval: (a: bigint[]) => (x.eval(a) === 0n ? 1n : 0n) })),
    fc.tuple(tie('e') as fc.Arbitrary<Node>, tie('e') as fc.Arbitrary<Node>, tie('e') as fc.Arbitrary<Node>).map(([c, t, o]) => ({
      src: `(${c.src} ? ${t.src} : ${o.src})`,
      eval: (a: bigint[]) => (c.eval(a) !== 0n ? t.eval(a) : o.eval(a)),
    })),
  ),
})).e as fc.Arbitrary<Node>;

function compileTrace(src: string): Difo {
  const r = compile(`BEGIN { trace((long long)${src}); }`);
  if (r.program === undefined) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program.ecbs[0]!.actions[0]!.difo!;
}

describe('DIF semantics', () => {
  it('random expressions evaluate like 64-bit D arithmetic', () => {
    fc.assert(
      fc.property(expr, fc.array(fc.bigInt({ min: -(1n << 40n), max: 1n << 40n }), { minLength: 4, maxLength: 4 }), (e, args) => {
        const d = compileTrace(e.src);
        expect(run(d, args)).toBe(e.eval(args));
      }),
      { numRuns: 600 },
    );
  });

  it('spills to clause-local variables when seven registers are not enough', () => {
    const deep = 'arg0 + (arg1 + (arg2 + (arg3 + (arg0 * (arg1 - (arg2 + (arg3 + (arg0 + (arg1 + 1)))))))))';
    const r = compile(`BEGIN { trace(${deep}); }`);
    expect(listDif(r)).toMatch(/stls %r\d, DT_VAR\(\d+\)\t\t! DT_VAR\(\d+\) = "%spill_0"/);
    const a = [5n, 7n, 11n, 13n];
    const ref = a[0]! + (a[1]! + (a[2]! + (a[3]! + a[0]! * (a[1]! - (a[2]! + (a[3]! + (a[0]! + (a[1]! + 1n))))))));
    expect(run(compileTrace(deep), a)).toBe(ref);
  });
});
