// stack() as an aggregation key and printa() of it, against a machine with
// a fixed kernel stack and symbols (a small MachineInterface fixture: the
// idle machine has no stacks).
import { describe, expect, it } from 'vitest';
import { Consumer } from '../src/consumer/consume.js';
import { DTraceState } from '../src/framework/state.js';
import { ProbeRegistry } from '../src/framework/probes.js';
import { defaultOptions, setOption } from '../src/framework/options.js';
import type { MachineInterface, ThreadIdentity } from '../src/framework/machine.js';
import { DTRACEACT, DTRACEAGG } from '../src/program/index.js';
import { buildEcb, buildProgram, difoInt } from '../src/builder.js';
import { difTypeByRef, CTF_K } from '../src/dif/index.js';
import { parsePrintfFormat } from '../src/consumer/printf.js';

const K = 0xffffffff80000000n;

class TwoStacks implements MachineInterface {
  readonly ncpus = 1;
  /** Which of the two stacks the next firing sees. */
  which = 0;
  readonly symbols = {
    lookup: (a: bigint) => {
      if (a >= K + 0x1000n && a < K + 0x1100n) return { module: 'kernel', symbol: { name: 'vfs_read', value: K + 0x1000n } };
      if (a >= K + 0x2000n && a < K + 0x2100n) return { module: 'kernel', symbol: { name: 'vfs_write', value: K + 0x2000n } };
      if (a >= K + 0x3000n && a < K + 0x3100n) return { module: 'kernel', symbol: { name: 'syscall', value: K + 0x3000n } };
      return undefined;
    },
  };
  now(): bigint {
    return 0n;
  }
  walltime(): bigint {
    return 0n;
  }
  load(): bigint | undefined {
    return undefined;
  }
  thread(): ThreadIdentity {
    return { pid: 1, ppid: 0, tid: 1, uid: 0, gid: 0, execname: 'init' };
  }
  kernelStack(_cpu: number, depth: number): bigint[] {
    return (this.which === 0 ? [K + 0x1010n, K + 0x3040n] : [K + 0x2008n, K + 0x3040n]).slice(0, depth);
  }
  userStack(): bigint[] {
    return [];
  }
}

function run(opts: Record<string, string | null> = {}, format?: string) {
  const registry = new ProbeRegistry();
  registry.registerProvider({
    name: 'fbt',
    attributes: { provider: '', module: '', function: '', name: '', args: '' },
    ops: { provide: (r) => void r.createProbe('fbt', 'kernel', 'f', 'entry'), enable() {}, disable() {} },
  });
  // @[stack(4)] = count();
  const program = buildProgram([buildEcb(0, ['fbt:::'], [{ kind: DTRACEACT.STACK, arg: 4n, noRecord: true }, { kind: DTRACEAGG.COUNT, ntuple: 1, uarg: 0n, noRecord: true, difo: difoInt(1) }])], {
    aggregations: [{ id: 0, name: '', function: DTRACEAGG.COUNT, arg: 0n, keys: [{ type: difTypeByRef(32, CTF_K.ARRAY), typeName: 'stack' }], dataSize: 8 }],
  });
  const machine = new TwoStacks();
  const o = defaultOptions();
  for (const [k, v] of Object.entries(opts)) setOption(o, k, v);
  const state = new DTraceState(program, registry, machine, o);
  const consumer = new Consumer(state, { out: () => {}, err: () => {} });
  state.go(0);
  const id = registry.lookup('fbt', 'kernel', 'f', 'entry')!.id;
  for (const which of [0, 1, 0, 0]) {
    machine.which = which;
    state.probe(id, 0, []);
  }
  if (format === undefined) return consumer.printAggregations();
  consumer.snapAggregations(true);
  return consumer.printa([0], parsePrintfFormat(format));
}

describe('tst.stack-keys: stack() aggregation keys print as dt_print_stack', () => {
  it('prints each stack as its frames after a newline, then the value, sorted by value', () => {
    expect(run()).toBe(
      '\n' +
        '              kernel`vfs_write+0x8\n' +
        '              kernel`syscall+0x40\n' +
        '                1\n' +
        '\n' +
        '              kernel`vfs_read+0x10\n' +
        '              kernel`syscall+0x40\n' +
        '                3\n',
    );
  });
  it('formats stack keys with %k in printa() (no indent unless left-justified)', () => {
    expect(run({}, '%k%@d\n')).toBe('\nkernel`vfs_write+0x8\nkernel`syscall+0x40\n1\n\nkernel`vfs_read+0x10\nkernel`syscall+0x40\n3\n');
    expect(run({}, '%-2k|%@d\n').split('\n')[1]).toBe('  kernel`vfs_write+0x8');
  });
  it('indents the frames by stackindent', () => {
    expect(run({ stackindent: '4' }).split('\n').slice(0, 3)).toEqual(['', '    kernel`vfs_write+0x8', '    kernel`syscall+0x40']);
  });
});
