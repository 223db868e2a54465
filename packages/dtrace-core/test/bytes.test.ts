// D strings are bytes: bytes of 0x80 and up read from the traced machine's
// memory reach the consumer's output as the same bytes (one code unit per
// byte in the output strings), whatever they are as text.
import { describe, expect, it } from 'vitest';
import { Consumer } from '../src/consumer/consume.js';
import { DTraceState } from '../src/framework/state.js';
import { IDLE_THREAD, type MachineInterface } from '../src/framework/machine.js';
import { ProbeRegistry } from '../src/framework/probes.js';
import { defaultOptions } from '../src/framework/options.js';
import { NO_SYMBOLS } from '../src/framework/machine.js';
import { DTRACEACT } from '../src/program/index.js';
import { DIF_OP, DIF_SUBR, difInstrCall, difInstrPushts, difInstrRet, difInstrSetx } from '../src/dif/index.js';
import { buildDifo, buildEcb, buildProgram, DIF_INT64, DIF_STRING256 } from '../src/builder.js';
import { stringBytes, bytesString } from '../src/dif/difo.js';

/** "a", 0xe9, 0xff, 0x80, "z" and a NUL in kernel memory at 0x10000 and in user memory at 0x400000. */
const BYTES = [0x61, 0xe9, 0xff, 0x80, 0x7a, 0];
class TestMachine implements MachineInterface {
  readonly ncpus = 1;
  readonly symbols = NO_SYMBOLS;
  now(): bigint {
    return 0n;
  }
  walltime(): bigint {
    return 0n;
  }
  load(addr: bigint, size: number, user: boolean): bigint | undefined {
    const off = Number(addr - (user ? 0x400000n : 0x10000n));
    if (off < 0 || off + size > 64) return undefined;
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(BYTES[off + i] ?? 0);
    return v;
  }
  thread() {
    return IDLE_THREAD;
  }
  kernelStack(): bigint[] {
    return [];
  }
  userStack(): bigint[] {
    return [];
  }
}

describe('bytes from memory', () => {
  it('print raw with %s, escaped with %S, dumped by tracemem(), and copyinstr() keeps them', () => {
    const registry = new ProbeRegistry();
    registry.registerProvider({
      name: 'test',
      attributes: { provider: '', module: '', function: '', name: '', args: '' },
      ops: { provide: (r) => void r.createProbe('test', '', '', 'fire'), enable() {}, disable() {} },
    });
    // stringof(0x10000): the kernel address as a string.
    const kernelString = buildDifo([difInstrSetx(0, 1), difInstrRet(1)], { inttab: [0x10000n], rtype: DIF_STRING256 });
    const copyinstr = buildDifo([DIF_OP.FLUSHTS << 24, difInstrSetx(0, 1), difInstrPushts(DIF_OP.PUSHTV, 0, 0, 1), difInstrCall(DIF_SUBR.COPYINSTR, 2), difInstrRet(2)], { inttab: [0x400000n], rtype: DIF_STRING256 });
    const address = buildDifo([difInstrSetx(0, 1), difInstrRet(1)], { inttab: [0x10000n], rtype: DIF_INT64 });
    const program = buildProgram(
      [
        buildEcb(0, ['test:::fire'], [
          { kind: DTRACEACT.PRINTF, difo: kernelString, format: 0, ntuple: 1 },
          { kind: DTRACEACT.PRINTF, difo: kernelString, format: 1, ntuple: 1 },
          { kind: DTRACEACT.PRINTF, difo: copyinstr, format: 2, ntuple: 1 },
          { kind: DTRACEACT.TRACEMEM, difo: address, size: 5, arg: 5n },
        ]),
      ],
      { formats: [{ id: 0, kind: 'printf', format: '[%s]' }, { id: 1, kind: 'printf', format: '[%S]' }, { id: 2, kind: 'printf', format: '[%s]\n' }] },
    );
    const options = defaultOptions();
    options.quiet = true;
    const state = new DTraceState(program, registry, new TestMachine(), options);
    let out = '';
    let err = '';
    const consumer = new Consumer(state, { out: (s) => (out += s), err: (s) => (err += s) });
    state.go(0);
    state.probe(registry.lookup('test', '', '', 'fire')!.id, 0, []);
    consumer.consume(true);
    expect(err).toBe('');
    const bytes = stringBytes(out);
    const head = [0x5b, 0x61, 0xe9, 0xff, 0x80, 0x7a, 0x5d, ...stringBytes('[a\\351\\377\\200z]'), 0x5b, 0x61, 0xe9, 0xff, 0x80, 0x7a, 0x5d, 0x0a];
    expect([...bytes.subarray(0, head.length)]).toEqual(head);
    // tracemem(): the hex dump, the ASCII column with dots for the bytes that are not printable.
    expect(bytesString(bytes.subarray(head.length))).toBe(
      '\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n         0: 61 e9 ff 80 7a                                   a...z\n',
    );
  });
});
