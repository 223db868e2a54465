// stack(), ustack() and the symbol actions printed by the consumer against a
// machine that has a kernel stack, a user stack and symbol tables: a small
// MachineInterface fixture with fixed frames and symbols (the idle machine
// has neither). The D programs are compiled by the real compiler and run by
// the real framework and consumer.
import { describe, expect, it } from 'vitest';
import { Consumer, DTraceState, ProbeRegistry, defaultOptions, setOption, type ConsumerSymbols, type MachineInterface, type SymbolMatch, type ThreadIdentity } from '@wdtrace/dtrace-core';
import { createDtraceProvider, fireBegin, fireEnd } from '@wdtrace/providers';
import { compile } from '@wdtrace/d-lang';

const K = 0xffffffff80000000n;

/** name, start, size within a module spanning [base, base + span). */
interface Module {
  name: string;
  base: bigint;
  span: bigint;
  symbols: [string, bigint, bigint][];
}

const KERNEL: Module[] = [
  { name: 'kernel', base: K, span: 0x10000n, symbols: [['vfs_read', K + 0x1000n, 0x80n], ['sys_read', K + 0x2000n, 0x40n], ['syscall_entry', K + 0x3000n, 0x100n]] },
  { name: 'ext2', base: K + 0x20000n, span: 0x1000n, symbols: [['ext2_read', K + 0x20100n, 0x20n]] },
];
const USER: Module[] = [
  { name: 'a.out', base: 0x400000n, span: 0x10000n, symbols: [['main', 0x401000n, 0x50n]] },
  { name: 'libc.so', base: 0x7f0000000000n, span: 0x100000n, symbols: [['read', 0x7f0000001000n, 0x20n]] },
];

function find(modules: Module[], addr: bigint): SymbolMatch | undefined {
  const m = modules.find((x) => addr >= x.base && addr < x.base + x.span);
  if (!m) return undefined;
  const s = m.symbols.find(([, v, n]) => addr >= v && addr < v + n);
  return s ? { module: m.name, symbol: { name: s[0], value: s[1] } } : { module: m.name };
}

/** A one-CPU machine stopped in a read(2): fixed kernel and user stacks, process 42. */
class StoppedInRead implements MachineInterface {
  readonly ncpus = 1;
  readonly symbols: ConsumerSymbols = {
    lookup: (a: bigint) => find(KERNEL, a),
    lookupUser: (pid: bigint, a: bigint) => (pid === 42n ? find(USER, a) : undefined),
  };
  now(): bigint {
    return 1_000_000n;
  }
  walltime(): bigint {
    return 0n;
  }
  load(): bigint | undefined {
    return undefined;
  }
  thread(): ThreadIdentity {
    return { pid: 42, ppid: 1, tid: 42, uid: 0, gid: 0, execname: 'cat' };
  }
  kernelStack(_cpu: number, depth: number): bigint[] {
    // In ext2_read, called from vfs_read, from an unnamed spot of ext2, from sys_read, from outside every module.
    return [K + 0x20110n, K + 0x1024n, K + 0x20800n, K + 0x2000n, 0xdead0000n].slice(0, depth);
  }
  userStack(_cpu: number, depth: number): bigint[] {
    return [0x7f0000001008n, 0x401010n, 0x7f0000090000n, 0x9000n].slice(0, depth);
  }
}

function trace(source: string, opts: Record<string, string | null> = {}, dataModel: 'LP64' | 'ILP32' = 'LP64', machine: MachineInterface = new StoppedInRead()) {
  const result = compile(source, { dataModel, options: opts });
  if (!result.program) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  const registry = new ProbeRegistry();
  registry.registerProvider(createDtraceProvider());
  const options = defaultOptions();
  for (const [k, v] of Object.entries(opts)) setOption(options, k, v);
  for (const o of result.program.options) setOption(options, o.name, o.value);
  const state = new DTraceState(result.program, registry, machine, options);
  let out = '';
  const consumer = new Consumer(state, { out: (s) => (out += s), err: (s) => (out += `[err] ${s}`) });
  state.go(0, (cpu) => fireBegin(state, cpu));
  consumer.consume(false);
  state.stop(0, (cpu) => fireEnd(state, cpu));
  consumer.consume(true);
  return out + '\n' + consumer.printAggregations();
}

describe('tst.stack: stack() and ustack() frames like dt_print_stack/dt_print_ustack', () => {
  it('prints one frame per line, indented by stackindent, after a newline', () => {
    expect(trace('BEGIN { stack(); }')).toBe(
      'CPU     ID                    FUNCTION:NAME\n' +
        '  0      1                           :BEGIN \n' +
        '              ext2`ext2_read+0x10\n' +
        '              kernel`vfs_read+0x24\n' +
        '              ext2`0xffffffff80020800\n' +
        '              kernel`sys_read\n' +
        '              0xdead0000\n' +
        '\n\n',
    );
  });
  it('records stack(n) frames, and the stackframes option sets the default depth', () => {
    expect(trace('#pragma D option quiet\nBEGIN { stack(2); }')).toBe('\n              ext2`ext2_read+0x10\n              kernel`vfs_read+0x24\n\n');
    expect(trace('#pragma D option quiet\nBEGIN { stack(); }', { stackframes: '1' })).toBe('\n              ext2`ext2_read+0x10\n\n');
    expect(trace('#pragma D option quiet\n#pragma D option stackindent=2\nBEGIN { stack(1); printf("|"); }')).toBe('\n  ext2`ext2_read+0x10\n|\n');
  });
  it('records 32-bit program counters for an ILP32 (ARM) program', () => {
    const arm = new (class extends StoppedInRead {
      override kernelStack(): bigint[] {
        return [0xc0101010n, 0xc0102000n];
      }
      override readonly symbols: ConsumerSymbols = { lookup: (a: bigint) => (a >= 0xc0101000n && a < 0xc0101100n ? { module: 'kernel', symbol: { name: 'vfs_read', value: 0xc0101000n } } : undefined) };
    })();
    expect(trace('#pragma D option quiet\nBEGIN { stack(3); }', {}, 'ILP32', arm)).toBe('\n              kernel`vfs_read+0x10\n              0xc0102000\n\n');
  });
  it('names user frames in the traced process, ustack(n) limiting them', () => {
    expect(trace('#pragma D option quiet\nBEGIN { ustack(); }')).toBe(
      '\n              libc.so`read+0x8\n              a.out`main+0x10\n              libc.so`0x7f0000090000\n              0x9000\n\n',
    );
    expect(trace('#pragma D option quiet\nBEGIN { ustack(1); }')).toBe('\n              libc.so`read+0x8\n\n');
  });
});

describe('tst.symbols: sym(), func(), mod() and %a', () => {
  it('prints each in a 50-column field after two spaces', () => {
    const r = trace(`#pragma D option quiet\nBEGIN { sym(${K + 0x1010n}); func(${K + 0x20800n}); mod(${K + 0x2010n}); mod(16); sym(16); printf("|\\n"); }`);
    expect(r).toBe(
      '  ' + 'kernel`vfs_read'.padEnd(50) + '  ' + 'ext2`0xffffffff80020800'.padEnd(50) + '  ' + 'kernel'.padEnd(50) + '  ' + '0x10'.padEnd(50) + '  ' + '0x10'.padEnd(50) + '|\n\n',
    );
  });
  it('formats %a with the offset and no module fallback (dtrace_addr2str)', () => {
    const r = trace(`#pragma D option quiet\nBEGIN { printf("%a %a %a %-20a|\\n", ${K + 0x1010n}, ${K + 0x1000n}, ${K + 0x20800n}, ${K + 0x2000n}); }`);
    expect(r).toBe('kernel`vfs_read+0x10 kernel`vfs_read 0xffffffff80020800 kernel`sys_read     |\n\n');
  });
});
