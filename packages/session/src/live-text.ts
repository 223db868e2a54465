// The live kernel text: a kernel function's instructions as the image has
// them next to what the guest would fetch now that probes are enabled,
// and the probes placed at each address — what `wdtrace dis --live` lists
// and the playground shows beside a run. x86-64 is decoded by the core's
// own decoder, ARM (A32, T32 — a Thumb function — and literal pools) in
// llvm-objdump's layout.
import type { ProbeRegistry } from '@wdtrace/dtrace-core';
import { createX86Decoder, disassemble, formatLine, type DisassemblyLine, type Symbolizer, type X86Decoder } from '@wdtrace/isa-x86-as';
import { armObjdumpLines, type ArmMapping } from '@wdtrace/isa-arm-as';
import type { KernelSymbol, Machine } from '@wdtrace/kernel';
import type { Tracepoint } from '@wdtrace/providers';

/** One instruction of a function: its image line, the live lines where a probe patched it, the probes placed there. */
export interface LiveRow {
  readonly image: string;
  /** The live text (a second line when a breakpoint is shorter than the instruction it replaced). */
  readonly live?: readonly string[];
  readonly probes?: readonly string[];
}

/** Where enabled probes are written now: address -> the names of the probes placed there (from their tracepoints). */
export function placedProbes(registry: ProbeRegistry): Map<bigint, string[]> {
  const at = new Map<bigint, string[]>();
  for (const p of registry.all()) {
    if (p.enabledCount === 0) continue;
    const arg = p.providerArg as { tracepoints?: readonly Tracepoint[]; tracepoint?: Tracepoint } | undefined;
    for (const tp of arg?.tracepoints ?? (arg?.tracepoint ? [arg.tracepoint] : [])) {
      const names = at.get(tp.address) ?? [];
      if (!names.includes(tp.name)) names.push(tp.name);
      at.set(tp.address, names);
    }
  }
  return at;
}

/** Names kernel addresses as llvm-objdump does: a function's name at its start, `name+0xoff` inside it. */
export function kernelSymbolizer(machine: Machine): Symbolizer {
  return {
    startingAt: (a) => {
      const f = machine.symbols.functionAt(a);
      return f && f.address === a ? f.name : undefined;
    },
    symbolize: (a) => {
      const info = machine.symbols.lookup(a);
      if (!info) return undefined;
      return info.offset === 0n ? info.symbol.name : `${info.symbol.name}+0x${info.offset.toString(16)}`;
    },
  };
}

const hexBytes = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');

let x86Decoder: Promise<X86Decoder> | undefined;

/** x86-64: the image decoded from the start; each patched instruction's live bytes decoded at the same address. */
function x86Rows(decoder: X86Decoder, image: Uint8Array, live: Uint8Array, start: bigint, symbols: Symbolizer, probes: ReadonlyMap<bigint, readonly string[]>): LiveRow[] {
  return disassemble(decoder, image, start, symbols).map((line) => {
    const off = Number(line.address - start);
    const now = live.subarray(off, off + line.bytes.length);
    const names = probes.get(line.address);
    const row = { image: formatLine(line), ...(names ? { probes: names } : {}) };
    if (now.every((b, i) => b === line.bytes[i])) return row;
    const first = disassemble(decoder, now, line.address, symbols)[0]!;
    const patched: DisassemblyLine = { ...first, symbol: undefined };
    const lines = [formatLine(patched)];
    // A trap shorter than the instruction (int3 on a longer one): the rest is never fetched.
    if (first.bytes.length < now.length) {
      const restAt = line.address + BigInt(first.bytes.length);
      lines.push(`${restAt.toString(16).padStart(8, ' ')}: ${hexBytes(now.subarray(first.bytes.length))}`.padEnd(39, ' ') + '\t(rest of the displaced instruction: not fetched)');
    }
    return { ...row, live: lines };
  });
}

/** ARM: line for line in llvm-objdump's layout, the literal pools of the function's module as data. */
function armRows(machine: Machine, f: KernelSymbol, image: Uint8Array, live: Uint8Array, symbols: Symbolizer, probes: ReadonlyMap<bigint, readonly string[]>): LiveRow[] {
  const start = f.address;
  // A Thumb function (its symbol's bit 0) is T32 code between its literal pools.
  const code = f.thumb ? 't' : 'a';
  const mapping: { address: bigint; kind: string }[] = [{ address: start, kind: code }];
  for (const r of machine.kernelModules().find((m) => m.name === f.module)?.dataRanges ?? []) {
    if (r.end <= start || r.start >= start + BigInt(f.size)) continue;
    mapping.push({ address: r.start, kind: 'd' }, { address: r.end, kind: code });
  }
  const symbolize = (a: bigint): string | undefined => symbols.symbolize(a);
  const before = armObjdumpLines(image, start, mapping as ArmMapping, symbolize);
  const after = armObjdumpLines(live, start, mapping as ArmMapping, symbolize);
  return before.map((line, i) => {
    const names = probes.get(BigInt(parseInt(line.trim().split(':')[0]!, 16)));
    return { image: line, ...(after[i] !== line ? { live: [after[i]!] } : {}), ...(names ? { probes: names } : {}) };
  });
}

/** The rows of kernel function `f`, given its image bytes and its live bytes, with the probes placed in it. */
export async function liveRows(machine: Machine, f: KernelSymbol, image: Uint8Array, live: Uint8Array, probes: ReadonlyMap<bigint, readonly string[]>): Promise<LiveRow[]> {
  const symbols = kernelSymbolizer(machine);
  if (machine.isa === 'x86_64') return x86Rows(await (x86Decoder ??= createX86Decoder()), image, live, f.address, symbols, probes);
  return armRows(machine, f, image, live, symbols, probes);
}
