import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DIF_OP,
  DIF_OPCODES,
  DIF_OPCODES_BY_NAME,
  DIF_SUBR,
  DIF_SUBR_NAMES,
  DIF_VAR,
  DIFV_F_MOD,
  DIFV_F_REF,
  DIFV_KIND_SCALAR,
  DIFV_SCOPE_GLOBAL,
  DifStringTable,
  type Difo,
  difInstrBranch,
  difInstrCall,
  difInstrFmt,
  difInstrLdv,
  difInstrOp,
  difInstrR1,
  difInstrR2,
  difInstrRd,
  difInstrRet,
  difInstrSets,
  difInstrSetx,
  difInstrStv,
  difInstrVar,
  difListing,
  difoFromJSON,
  difoToJSON,
  difTypeInteger,
  difTypeString,
} from '../src/dif/index.js';
import {
  DTRACEACT,
  DTRACEAGG,
  type CompiledProgram,
  PROGRAM_FORMAT_VERSION,
  lquantizeArg,
  lquantizeParams,
  programFromJSON,
  programToJSON,
} from '../src/program/index.js';
import {
  createCTypeDictionary,
  createDTypeDictionary,
  findMember,
  layoutStruct,
  sizeOfType,
  alignOfType,
  typeName,
} from '../src/types/index.js';

describe('DIF opcode table', () => {
  it('has the illumos numbers and mnemonics', () => {
    // Spot checks against <sys/dtrace.h>.
    expect(DIF_OP.OR).toBe(1);
    expect(DIF_OP.RET).toBe(35);
    expect(DIF_OP.SETX).toBe(37);
    expect(DIF_OP.LDGA).toBe(40);
    expect(DIF_OP.CALL).toBe(47);
    expect(DIF_OP.STX).toBe(63);
    expect(DIF_OP.RLDX).toBe(77);
    expect(DIF_OP.XLARG).toBe(79);
    expect(DIF_OPCODES[0]).toBeUndefined();
    for (const [name, code] of Object.entries(DIF_OP)) {
      const info = DIF_OPCODES[code];
      expect(info, name).toBeDefined();
      expect(info!.name).toBe(name.toLowerCase());
      expect(DIF_OPCODES_BY_NAME.get(name.toLowerCase())!.opcode).toBe(code);
    }
    expect(Object.keys(DIF_OP)).toHaveLength(80);
  });

  it('has the subroutine and variable numbers', () => {
    expect(DIF_SUBR.STRTOLL).toBe(48);
    expect(DIF_SUBR_NAMES).toHaveLength(49);
    expect(DIF_SUBR_NAMES[DIF_SUBR.COPYINSTR]).toBe('copyinstr');
    expect(DIF_VAR.EXECNAME).toBe(0x118);
    expect(DIF_VAR.ERRNO).toBe(0x120);
  });
});

describe('DIF instruction encoding', () => {
  it('round-trips register fields', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 80 }), fc.nat(255), fc.nat(255), fc.nat(255), (op, r1, r2, rd) => {
        const w = difInstrFmt(op, r1, r2, rd);
        expect(difInstrOp(w)).toBe(op);
        expect(difInstrR1(w)).toBe(r1);
        expect(difInstrR2(w)).toBe(r2);
        expect(difInstrRd(w)).toBe(rd);
        expect(w).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('encodes like the DIF_INSTR_* macros', () => {
    expect(difInstrSetx(0, 1)).toBe(0x25000001);
    expect(difInstrRet(1)).toBe(0x23000001);
    expect(difInstrBranch(DIF_OP.BE, 5)).toBe(0x12000005);
    expect(difInstrCall(DIF_SUBR.STRLEN, 2)).toBe(0x2f000c02);
    expect(difInstrVar(difInstrLdv(DIF_OP.LDGS, 0x500, 3))).toBe(0x500);
  });

  it('rejects out-of-range fields', () => {
    expect(() => difInstrFmt(DIF_OP.ADD, 256, 0, 0)).toThrow(/r1 out of range/);
    expect(() => difInstrSetx(0x10000, 1)).toThrow(/integer index/);
    expect(() => difInstrBranch(DIF_OP.BA, 1 << 24)).toThrow(/label/);
  });
});

describe('DIF listing', () => {
  it('prints in the layout of dtrace -S', () => {
    const strs = new DifStringTable();
    const hello = strs.insert('hello');
    const x = strs.insert('x');
    const difo: Difo = {
      buf: Uint32Array.from([
        difInstrSetx(0, 1),
        difInstrSets(hello, 2),
        difInstrStv(DIF_OP.STGS, 0x500, 1),
        difInstrLdv(DIF_OP.LDGS, 0x500, 3),
        difInstrFmt(DIF_OP.ADD, 1, 3, 1),
        difInstrCall(DIF_SUBR.STRLEN, 2),
        difInstrRet(1),
      ]),
      inttab: [42n],
      strtab: strs.toBytes(),
      vartab: [
        {
          name: x,
          id: 0x500,
          kind: DIFV_KIND_SCALAR,
          scope: DIFV_SCOPE_GLOBAL,
          flags: DIFV_F_REF | DIFV_F_MOD,
          type: difTypeInteger(8),
        },
      ],
      rtype: difTypeInteger(8),
      xlrefs: [],
    };
    expect(difListing(difo, { address: '0x1000' })).toBe(
      [
        '',
        'DIFO 0x1000 returns D type (integer) (size 8)',
        'OFF OPCODE      INSTRUCTION',
        '00: 25000001    setx DT_INTEGER[0], %r1\t\t! 0x2a',
        '01: 26000002    sets DT_STRING[0], %r2\t\t! "hello"',
        '02: 2a050001    stgs %r1, DT_VAR(1280)\t\t! DT_VAR(1280) = "x"',
        '03: 29050003    ldgs DT_VAR(1280), %r3\t\t! DT_VAR(1280) = "x"',
        '04: 07010301    add  %r1, %r3, %r1',
        '05: 2f000c02    call DIF_SUBR(12), %r2\t\t! strlen',
        '06: 23000001    ret  %r1',
        '',
        'NAME             ID   KND SCP FLAG TYPE',
        'x                500  scl glb r/w  D type (integer) (size 8)',
        '',
      ].join('\n'),
    );
    expect(difListing({ ...difo, buf: Uint32Array.from([0xff000000]) })).toContain('(illegal opcode)');
  });

  it('round-trips a DIFO through JSON', () => {
    const difo: Difo = {
      buf: Uint32Array.from([difInstrSetx(0, 1), difInstrRet(1)]),
      inttab: [0xffffffffffffffffn],
      strtab: new Uint8Array([0x61, 0]),
      vartab: [],
      rtype: difTypeString(256),
      xlrefs: [],
    };
    const back = difoFromJSON(JSON.parse(JSON.stringify(difoToJSON(difo))));
    expect(back).toEqual(difo);
  });
});

describe('compiled program format', () => {
  it('round-trips through JSON and structuredClone', () => {
    const p: CompiledProgram = {
      version: PROGRAM_FORMAT_VERSION,
      dataModel: 'LP64',
      options: [{ name: 'quiet', value: null }],
      ecbs: [
        {
          clause: 0,
          probes: [{ provider: 'dtrace', module: '', function: '', name: 'BEGIN', id: 0 }],
          actions: [
            {
              kind: DTRACEAGG.LQUANTIZE,
              ntuple: 0,
              arg: lquantizeArg(0, 10, 1),
              uarg: 0n,
            },
            { kind: DTRACEACT.EXIT, ntuple: 0, arg: 0n, uarg: 0n },
          ],
          size: 16,
          alignment: 4,
          headerSize: 12,
          destructive: false,
          speculative: false,
        },
      ],
      aggregations: [],
      formats: [{ id: 0, kind: 'printf', format: '%d\n' }],
      translators: [],
      speculations: 0,
      destructive: false,
    };
    expect(programFromJSON(JSON.parse(JSON.stringify(programToJSON(p))))).toEqual(p);
    expect(structuredClone(p)).toEqual(p);
    expect(lquantizeParams(lquantizeArg(-5, 10, 2))).toEqual({ base: -5, levels: 10, step: 2 });
  });
});

describe('type dictionaries', () => {
  it('sizes the C types per data model', () => {
    const lp64 = createCTypeDictionary('LP64');
    const ilp32 = createCTypeDictionary('ILP32');
    expect(sizeOfType(lp64.lookupType('long')!)).toBe(8);
    expect(sizeOfType(ilp32.lookupType('long')!)).toBe(4);
    expect(sizeOfType(ilp32.lookupType('uint64_t')!)).toBe(8);
    expect(sizeOfType(lp64.lookupType('unsigned   long')!)).toBe(8);
    expect(typeName(lp64.pointerTo(lp64.lookupType('char')!))).toBe('char *');
  });

  it('lays out structs with C alignment and finds members', () => {
    const c = createCTypeDictionary('LP64');
    const s = layoutStruct('struct', 'foo', [
      { name: 'a', type: c.lookupType('char')! },
      { name: 'b', type: c.lookupType('long')! },
      { name: 'c', type: c.lookupType('short')! },
    ]);
    expect(s.members.map((m) => m.offset)).toEqual([0, 8, 16]);
    expect(s.size).toBe(24);
    expect(alignOfType(s)).toBe(8);
    const d = createDTypeDictionary(c);
    const ps = d.lookupType('psinfo_t')!;
    expect(findMember(ps, 'pr_pid')!.offset).toBe(8);
    expect(typeName(findMember(ps, 'pr_fname')!.type)).toBe('char [16]');
    expect(d.lookupType('string')!.kind).toBe('string');
  });
});
