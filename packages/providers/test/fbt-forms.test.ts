// x86-64 fbt return forms the committed kernel does not contain, on small
// hand-assembled functions run by the real core: `leave; ret` (probe on the
// leave, LEAVE emulation) and a ret that a jump lands on (probe on the ret
// itself, RET emulation); a jump inside the function is no return.
import { X86Emulation } from '@wdtrace/isa-x86-as';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { fbtPoints } from '../src/fbt/points.js';
import { createIsaSupport } from '../src/isa/index.js';
import { tracepointsOf } from '../src/tracepoints.js';


// f(x) = x == 0 ? 1 : 0, leaving through a ret that a jump also reaches.
const SHARED_RET = [
  0x55, //             0: push %rbp
  0x48, 0x89, 0xe5, // 1: mov %rsp, %rbp
  0x31, 0xc0, //       4: xor %eax, %eax
  0x85, 0xff, //       6: test %edi, %edi
  0x74, 0x03, //       8: je 0xd
  0xc9, //             a: leave
  0xc3, //             b: ret            <- target of the jmp at 0x10
  0x90, //             c: nop
  0x5d, //             d: pop %rbp
  0xff, 0xc0, //       e: inc %eax
  0xeb, 0xf9, //      10: jmp 0xb
];
// g(x) = x, leaving through leave; ret.
const LEAVE_RET = [0x55, 0x48, 0x89, 0xe5, 0x89, 0xf8, 0xc9, 0xc3];

describe('x86-64 fbt return forms', () => {
  it('puts the probe on the ret a jump lands on, and on the leave of leave; ret', async () => {
    const target = await KernelCalls.create('x86_64');
    const support = await createIsaSupport('x86_64');
    const place = (at: bigint, code: number[]) => {
      target.machine.writeText(at, Uint8Array.from(code));
      return fbtPoints(support, at, code.length, support.decode(Uint8Array.from(code), at));
    };
    const f = target.scratch;
    const g = target.scratch + 0x100n;
    const fp = place(f, SHARED_RET);
    const gp = place(g, LEAVE_RET);
    expect(fp.entry!.result).toEqual({ kind: 'emulate', code: X86Emulation.pushRbp });
    expect(fp.returns.map((r) => [Number(r.insn.address - f), r.result])).toEqual([[0xb, { kind: 'emulate', code: X86Emulation.ret }]]);
    expect(gp.returns.map((r) => [Number(r.insn.address - g), r.result])).toEqual([[6, { kind: 'emulate', code: X86Emulation.leave }]]);

    const native = [target.call(f, [0n]).value, target.call(f, [5n]).value, target.call(g, [77n]).value];
    expect(native).toEqual([1n, 0n, 77n]);
    const fired: string[] = [];
    const table = tracepointsOf(target.machine);
    const all = [
      { name: 'f:entry', pt: fp.entry! },
      { name: 'f:return', pt: fp.returns[0]! },
      { name: 'g:entry', pt: gp.entry! },
      { name: 'g:return', pt: gp.returns[0]! },
    ].map(({ name, pt }) => ({ address: pt.insn.address, patch: pt.patch, name, fire: () => (fired.push(name), pt.result) }));
    for (const tp of all) table.install(tp);
    const sp = target.machine.registers(0).sp();
    expect([target.call(f, [0n]).value, target.call(f, [5n]).value, target.call(g, [77n]).value]).toEqual(native);
    expect(target.machine.registers(0).sp()).toBe(sp);
    expect(fired).toEqual(['f:entry', 'f:return', 'f:entry', 'f:return', 'g:entry', 'g:return']);
    for (const tp of all) table.remove(tp);
    expect([...target.machine.readText(f, SHARED_RET.length)]).toEqual(SHARED_RET);
  });
});
