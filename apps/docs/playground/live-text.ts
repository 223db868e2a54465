// The live kernel text of a run (what `wdtrace dis --live` lists): taken
// when the program's probes are in the text, before the guest runs on — for
// each kernel function a probe patched, its bytes as the image has them (the
// tracepoint table's originals) and as the guest would fetch them now, and
// the probes placed at each address. Disassembled on request with the CPU
// cores' own decoders, so the page can show the image's instruction next to
// the breakpoint that replaced it. Worker side; reads the machine only.
import type { ProbeRegistry } from '@wdtrace/dtrace-core';
import { createX86Decoder, disassemble, formatLine, type Symbolizer } from '@wdtrace/isa-x86-as';
import { describeA32 } from '@wdtrace/isa-arm-as';
import type { KernelSymbol, Machine } from '@wdtrace/kernel';
import { tracepointsOf, type PlacedProbe, type Tracepoint } from '@wdtrace/providers';

/** A function whose text a probe patched. */
export interface LiveFunction {
  /** `name`, or `module`name` outside the kernel proper (the key the page asks with). */
  readonly label: string;
  /** Instructions patched. */
  readonly patched: number;
}

/** One instruction: the image's line, the live line where a probe patched it, and the probes placed there. */
export interface LiveRow {
  readonly image: string;
  readonly live?: string;
  readonly probes?: readonly string[];
}

interface Snapshot {
  readonly symbol: KernelSymbol;
  readonly image: Uint8Array;
  readonly live: Uint8Array;
}

const hexBytes = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');

/** The probes placed at each address, by the tracepoints enabled probes hold (one probe, or several together). */
function placedProbes(registry: ProbeRegistry): Map<bigint, string[]> {
  const at = new Map<bigint, string[]>();
  for (const p of registry.all()) {
    if (p.enabledCount === 0) continue;
    const arg = p.providerArg as (PlacedProbe & { tracepoint?: Tracepoint }) | undefined;
    for (const tp of arg?.tracepoints ?? (arg?.tracepoint ? [arg.tracepoint] : [])) {
      const names = at.get(tp.address) ?? [];
      if (!names.includes(tp.name)) at.set(tp.address, [...names, tp.name]);
    }
  }
  return at;
}

export class LiveText {
  private constructor(
    private readonly machine: Machine,
    private readonly functions: ReadonlyMap<string, Snapshot>,
    private readonly probesAt: ReadonlyMap<bigint, string[]>,
  ) {}

  /** Takes the text of every function a probe patched, now. */
  static capture(machine: Machine, registry: ProbeRegistry): LiveText {
    const probesAt = placedProbes(registry);
    const table = tracepointsOf(machine);
    const functions = new Map<string, Snapshot>();
    const addresses = [...probesAt.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const address of addresses) {
      const symbol = machine.symbols.functionAt(address);
      if (!symbol || symbol.size === 0) continue;
      const label = symbol.module === 'kernel' ? symbol.name : `${symbol.module}\`${symbol.name}`;
      if (functions.has(label)) continue;
      functions.set(label, { symbol, image: table.readOriginal(symbol.address, symbol.size), live: machine.readText(symbol.address, symbol.size).slice() });
    }
    return new LiveText(machine, functions, probesAt);
  }

  /** The patched functions, in address order. */
  list(): LiveFunction[] {
    return [...this.functions].map(([label, f]) => ({ label, patched: this.patchedInstructions(f) }));
  }

  /** The rows of one patched function (undefined when no probe patched it). */
  async rows(label: string): Promise<LiveRow[] | undefined> {
    const f = this.functions.get(label);
    if (!f) return undefined;
    return this.machine.isa === 'x86_64' ? this.x86Rows(f) : this.armRows(f);
  }

  /** The number of instruction starts whose bytes differ (a breakpoint shorter than its instruction counts once). */
  private patchedInstructions(f: Snapshot): number {
    return [...this.probesAt.keys()].filter((a) => a >= f.symbol.address && a < f.symbol.address + BigInt(f.symbol.size)).filter((a) => {
      const off = Number(a - f.symbol.address);
      return f.image[off] !== f.live[off];
    }).length;
  }

  private symbolizer(): Symbolizer {
    const symbols = this.machine.symbols;
    return {
      startingAt: (a) => (symbols.functionAt(a)?.address === a ? symbols.functionAt(a)!.name : undefined),
      symbolize: (a) => {
        const info = symbols.lookup(a);
        return info && (info.offset === 0n ? info.symbol.name : `${info.symbol.name}+0x${info.offset.toString(16)}`);
      },
    };
  }

  /** x86-64: the image decoded from the start; a patched instruction's live bytes decoded at its address. */
  private async x86Rows(f: Snapshot): Promise<LiveRow[]> {
    const decoder = await createX86Decoder();
    const symbols = this.symbolizer();
    return disassemble(decoder, f.image, f.symbol.address, symbols).map((line) => {
      const off = Number(line.address - f.symbol.address);
      const now = f.live.subarray(off, off + line.bytes.length);
      const probes = this.probesAt.get(line.address);
      if (now.every((b, i) => b === line.bytes[i])) return { image: formatLine({ ...line, symbol: undefined }), ...(probes ? { probes } : {}) };
      const trap = disassemble(decoder, now, line.address, symbols)[0]!;
      // A breakpoint shorter than the instruction: the rest of its bytes are never fetched.
      const rest = trap.bytes.length < now.length ? `  (then ${hexBytes(now.subarray(trap.bytes.length))}, not fetched)` : '';
      return { image: formatLine({ ...line, symbol: undefined }), live: formatLine({ ...trap, symbol: undefined }) + rest, ...(probes ? { probes } : {}) };
    });
  }

  /** ARM: word for word, as the A32 decoder describes each; the literal pools as .word. */
  private armRows(f: Snapshot): LiveRow[] {
    const symbols = this.symbolizer();
    const pools = this.machine.kernelModules().find((m) => m.name === f.symbol.module)?.dataRanges ?? [];
    const line = (bytes: Uint8Array, address: bigint): string => {
      const word = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
      if (pools.some((r) => address >= r.start && address < r.end)) return `${address.toString(16).padStart(8, ' ')}:\t${hexBytes(bytes)}\t.word\t0x${word.toString(16).padStart(8, '0')}`;
      const insn = describeA32(word, Number(address));
      const target = insn.target !== undefined && insn.classes.has('branch') ? symbols.symbolize(BigInt(insn.target)) : undefined;
      return `${address.toString(16).padStart(8, ' ')}: ${hexBytes(bytes)}  \t${insn.text}${target ? ` <${target}>` : ''}`;
    };
    const rows: LiveRow[] = [];
    for (let off = 0; off + 4 <= f.image.length; off += 4) {
      const address = f.symbol.address + BigInt(off);
      const image = line(f.image.subarray(off, off + 4), address);
      const now = f.live.subarray(off, off + 4);
      const probes = this.probesAt.get(address);
      const patched = !now.every((b, i) => b === f.image[off + i]);
      rows.push({ image, ...(patched ? { live: line(now, address) } : {}), ...(probes ? { probes } : {}) });
    }
    return rows;
  }
}
