// Arguments past the registers, read by a real D clause through the real
// framework from a real kernel function: format_number (lib/format.c) has
// eleven parameters, so on x86-64 args 6..9 are stack words above the return
// address and on ARM (A32 and Thumb-2, AAPCS) args 4..9 are stack words at
// the callee's entry. The call is snprintf with a format whose flags fix the
// values format_number receives; the stack arguments are read only when
// the clause asks, and a stack word that cannot be read is 0.
import { compile, formatDiagnostics } from '@wdtrace/d-lang';
import { Consumer, DTraceState, IdleMachine, ProbeRegistry, defaultOptions, setOption } from '@wdtrace/dtrace-core';
import { describe, expect, it } from 'vitest';
import { FbtProvider } from '../src/fbt/provider.js';
import { KernelCalls } from './kernel-calls.js';

const KERNELS = [
  { name: 'x86_64', isa: 'x86_64', thumb: false },
  { name: 'arm', isa: 'arm', thumb: false },
  { name: 'arm-thumb', isa: 'arm', thumb: true },
] as const;

/** A D program traced on a kernel called directly: `run` calls the kernel and returns what the clauses printed. */
async function tracing(isa: 'x86_64' | 'arm', thumb: boolean, script: string) {
  const target = await KernelCalls.create(isa, { thumb });
  const registry = new ProbeRegistry();
  let state: DTraceState | undefined;
  const fbt = await FbtProvider.create(target.machine, { probe: (id, cpu, args, rest) => state?.probe(id, cpu, args, rest) });
  registry.registerProvider(fbt.definition);
  // args[] typed by fbt from the kernel's DWARF, as the session's catalogue types them.
  const catalogue = {
    match: (d: { provider: string; module: string; function: string; name: string }) =>
      registry.match(d).map((p) => {
        const argTypes: string[] = [];
        for (let i = 0, t; (t = fbt.definition.ops.getArgDesc?.(p.id, p.providerArg, i)) !== undefined; i++) argTypes.push(t.native);
        return { id: p.id, provider: p.provider, module: p.module, function: p.function, name: p.name, argTypes };
      }),
  };
  const r = compile(script, { origin: { kind: 'text' }, dataModel: fbt.support.dataModel, probes: catalogue });
  if (!r.program) throw new Error(formatDiagnostics(r));
  const options = defaultOptions();
  setOption(options, 'quiet', null);
  state = new DTraceState(r.program, registry, new IdleMachine(1), options);
  let out = '';
  let err = '';
  const consumer = new Consumer(state, { out: (s) => (out += s), err: (s) => (err += s) });
  state.go(0);
  return {
    target,
    run(call: () => void): string {
      out = '';
      call();
      consumer.consume(false);
      expect(err).toBe('');
      return out;
    },
  };
}

describe.each(KERNELS)('stack arguments on the $name kernel', ({ isa, thumb }) => {
  it('gives a clause format_number\'s arguments past the registers, as arg6..arg9 and args[7]', async () => {
    const t = await tracing(isa, thumb, 'fbt::format_number:entry { printf("%d %d %d %d %d %d %d\\n", (int)arg4, (int)arg5, (int)arg6, (int)arg7, (int)arg8, (int)arg9, (int)args[7]); }');
    const buf = t.target.scratch;
    const fmt = buf + 0x100n;
    t.target.machine.writeText(fmt, new TextEncoder().encode('%-0+12.7d\0'));
    const snprintf = t.target.machine.symbols.byName('snprintf')!.address;
    const out = t.run(() => t.target.call(snprintf, [buf, 64n, fmt, 42n]));
    // format_number(st, value, negative, base, upper, width, precision, left, zero, plus, alt)
    // = (st, 42, 0, 10, 0, 12, 7, 1, 1, '+', 0).
    if (isa === 'x86_64') {
      // rdi rsi rdx rcx r8 r9, then the stack: arg4 upper 0, arg5 width 12, arg6.. precision, left, zero, plus.
      expect(out).toBe('0 12 7 1 1 43 1\n');
    } else {
      // r0 st, r1 unused, r2:r3 the 64-bit value, then the stack: negative, base, upper, width, precision, left.
      expect(out).toBe('0 10 0 12 7 1 12\n');
    }
    expect(new TextDecoder().decode(t.target.machine.readText(buf, 12))).toBe('+0000042    ');
  });

  it('gives 0 for a stack argument whose word cannot be read', async () => {
    // The caller's stack ends at the last byte of RAM: the stack words
    // strlen's entry would hold its arguments past the registers in are
    // beyond RAM, so no read of them succeeds.
    const t = await tracing(isa, thumb, 'fbt::strlen:entry { printf("%x %d %d %d %d %d %d\\n", arg0, arg4, arg5, arg6, arg7, arg8, arg9); }');
    const end = t.target.virtualBase + BigInt(t.target.machine.ramBytes);
    expect('fault' in t.target.machine.readKernel(end, 8)).toBe(true);
    expect('fault' in t.target.machine.readKernel(end - 8n, 8)).toBe(false);
    const s = t.target.scratch;
    t.target.machine.writeText(s, new TextEncoder().encode('seven!!\0'));
    const strlen = t.target.machine.symbols.byName('strlen')!.address;
    let value = 0n;
    const out = t.run(() => (value = t.target.call(strlen, [s], 1_000_000, end).value));
    expect(value).toBe(7n);
    const [arg0, ...rest] = out.trim().split(' ');
    expect(BigInt(`0x${arg0}`)).toBe(s);
    // x86-64: arg4 and arg5 are r8 and r9, whatever they hold; ARM: every argument past r3 is on the stack.
    expect(rest.slice(isa === 'x86_64' ? 2 : 0)).toEqual(isa === 'x86_64' ? ['0', '0', '0', '0'] : ['0', '0', '0', '0', '0', '0']);
  });
});
