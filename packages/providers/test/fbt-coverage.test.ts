// fbt probe discovery on the committed guest kernels of both ISAs: the share
// of kernel functions with both an entry and a return probe (target 95%),
// what is left out and why, and the probe points found for known functions.
import { ProbeRegistry } from '@wdtrace/dtrace-core';
import { defaultImages } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { KernelCalls } from './kernel-calls.js';
import { FbtProvider } from '../src/fbt/provider.js';
import { ArmEmulation } from '@wdtrace/isa-arm-as';
import { X86Emulation } from '@wdtrace/isa-x86-as';

const noSink = { probe: () => {} };

// Functions of the guest kernel that never return (declared __noreturn in
// its sources, or ending in a call to one): no return probe can exist.
const NEVER_RETURN = new Set([
  'start_kernel', 'secondary_start_kernel', 'board_poweroff', 'board_panic_stop', 'panic', 'do_exit', 'do_group_exit',
  'kthread_start', 'cpu_idle', 'sys_exit', 'sys_exit_group', 'init_main',
  // hand-written: return to user mode / into a new thread through iretq, eret or a jump
  'arch_return_to_user', 'trap_return', 'exception_return', 'kthread_trampoline', '_start', 'secondary_entry',
]);

/**
 * ld.lld's interworking veneers in the Thumb-2 kernel between A32 assembly
 * and Thumb C code. The Thumb ones end in `bx ip`, a return point like any
 * tail jump; the A32 ones (`movw ip; movt ip; bx ip` in A32 code, like every
 * A32 function) have no return probe: A32 fbt takes only `bx lr` for one.
 */
const isVeneer = (name: string): boolean => /^__ARMv7ABSLongThunk_/.test(name);

const KERNELS = [
  { name: 'x86_64', isa: 'x86_64', thumb: false },
  { name: 'arm', isa: 'arm', thumb: false },
  { name: 'arm-thumb', isa: 'arm', thumb: true },
] as const;

describe.each(KERNELS)('fbt discovery on the $name kernel', ({ name, isa, thumb }) => {
  it('gives at least 95% of kernel functions both an entry and a return probe', async () => {
    const target = await KernelCalls.create(isa, { thumb });
    const fbt = await FbtProvider.create(target.machine, noSink);
    const cov = fbt.coverage('kernel');
    const share = cov.withBoth / cov.functions;
    console.log(
      `fbt ${name}: ${cov.withBoth}/${cov.functions} functions with entry and return (${(share * 100).toFixed(1)}%), ` +
        `${cov.withEntry} with entry, ${cov.withReturn} with return; without both:\n` +
        cov.missing.map((m) => `  ${m.function}: ${m.entry ? `entry: ${m.entry}` : ''}${m.entry && m.return ? '; ' : ''}${m.return ? `return: ${m.return}` : ''}`).join('\n'),
    );
    expect(cov.functions).toBeGreaterThan(300);
    // Of the functions that can return, at least 95% get both probes.
    const returning = cov.functions - cov.missing.filter((m) => m.return && (NEVER_RETURN.has(m.function) || isVeneer(m.function))).length;
    console.log(`fbt ${name}: ${cov.withBoth}/${returning} functions that can return have both probes (${((cov.withBoth / returning) * 100).toFixed(1)}%)`);
    expect(cov.withBoth / returning).toBeGreaterThanOrEqual(0.95);
    // Every function without a return probe is one that cannot return.
    for (const m of cov.missing) if (m.return) expect(NEVER_RETURN.has(m.function) || isVeneer(m.function), m.function).toBe(true);
    expect(share).toBeGreaterThanOrEqual(thumb ? 0.94 : 0.95);
    if (thumb) {
      // Of the Thumb-2 kernel's Thumb functions (all its C code; the A32 ones
      // are its assembly and the linker's veneers), at least 95% get both.
      const thumbNames = new Set(target.machine.kernelModules()[0]!.functions.filter((f) => f.thumb).map((f) => f.name));
      const thumbBoth = thumbNames.size - cov.missing.filter((m) => thumbNames.has(m.function)).length;
      console.log(`fbt ${name}: ${thumbBoth}/${thumbNames.size} Thumb functions with entry and return (${((thumbBoth / thumbNames.size) * 100).toFixed(1)}%)`);
      expect(thumbNames.size).toBeGreaterThan(300);
      expect(thumbBoth / thumbNames.size).toBeGreaterThanOrEqual(0.95);
    }
    // Only functions that cannot return lack a probe: every function has an entry probe but the boot entry points' first instruction.
    for (const m of cov.missing) if (m.entry) expect(['_start', 'secondary_entry'], m.function).toContain(m.function);
  });

  it('gives every function of the hello module both probes', async () => {
    const target = await KernelCalls.create(isa, { thumb });
    target.loadModule('hello', defaultImages(isa, { thumb }).modules['hello']!);
    const fbt = await FbtProvider.create(target.machine, noSink);
    const cov = fbt.coverage('hello');
    expect(cov.functions).toBeGreaterThanOrEqual(5);
    expect(cov.withBoth).toBe(cov.functions);
  });

  it('finds every return form of the ISA in the kernel', async () => {
    const target = await KernelCalls.create(isa, { thumb });
    const fbt = await FbtProvider.create(target.machine, noSink);
    const kernel = target.machine.kernelModules()[0]!;
    const forms = new Map<string, number>();
    for (const fn of kernel.functions) {
      for (const r of fbt.pointsOf(kernel, fn).returns) {
        const text = r.insn.text.split('\t')[0]!;
        const key = `${text}:${r.result.kind === 'emulate' ? r.result.code : r.result.kind}`;
        forms.set(key, (forms.get(key) ?? 0) + 1);
      }
    }
    console.log(`fbt ${name} return forms: ${[...forms].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    if (isa === 'x86_64') {
      // pop %rbp before ret (POP_RBP) and tail jumps (displaced); this kernel
      // has no leave and no ret a jump lands on (fbt-forms.test.ts has them).
      expect(forms.get(`popq:${X86Emulation.popRbp}`)).toBeGreaterThan(200);
      expect(forms.get('jmp:displaced')).toBeGreaterThan(0);
    } else if (thumb) {
      // pop {..., pc} and bx lr by their Thumb emulation codes, bx through
      // another register (veneers) and tail calls displaced; those in IT
      // blocks take the block's condition.
      expect(forms.get(`pop:${ArmEmulation.T_POP}`)).toBeGreaterThan(200);
      expect(forms.get(`bx:${ArmEmulation.T_BX_LR}`)).toBeGreaterThan(0);
      expect(forms.get('bx:displaced')).toBeGreaterThan(0);
      expect(forms.get('b.w:displaced')).toBeGreaterThan(0);
      expect([...forms.keys()].some((k) => /^(pop|bx)(eq|ne|lt|gt|le|ge|hi|ls|hs|lo):\d+$/.test(k))).toBe(true);
    } else {
      expect(forms.get(`pop:${ArmEmulation.POPM}`)).toBeGreaterThan(200);
      expect(forms.get(`bx:${ArmEmulation.BX_LR}`)).toBeGreaterThan(0);
      expect(forms.get(`b:${ArmEmulation.B}`)).toBeGreaterThan(0);
      // Conditional returns keep their condition in the breakpoint.
      expect([...forms.keys()].some((k) => /^(pop|bx)(eq|ne|lt|gt|le|ge|hi|ls|hs|lo):/.test(k))).toBe(true);
    }
  });

  it('creates entry and return probes named after the functions, and none for a pattern that names neither', async () => {
    const target = await KernelCalls.create(isa, { thumb });
    const fbt = await FbtProvider.create(target.machine, noSink);
    const registry = new ProbeRegistry();
    registry.registerProvider(fbt.definition);
    const entries = registry.match({ provider: 'fbt', module: 'kernel', function: 'memcpy', name: 'entry' });
    const returns = registry.match({ provider: 'fbt', module: 'kernel', function: 'memcpy', name: 'return' });
    expect(entries.map((p) => `${p.provider}:${p.module}:${p.function}:${p.name}`)).toEqual(['fbt:kernel:memcpy:entry']);
    expect(returns).toHaveLength(1);
    expect(registry.match({ provider: 'fbt', module: '', function: 'memcpy', name: 'nosuch' })).toHaveLength(0);
    const all = registry.match({ provider: 'fbt', module: '', function: '', name: '' });
    const cov = fbt.coverage();
    expect(all.filter((p) => p.name === 'entry')).toHaveLength(cov.withEntry);
    expect(all.filter((p) => p.name === 'return')).toHaveLength(cov.withReturn);
  });
});
