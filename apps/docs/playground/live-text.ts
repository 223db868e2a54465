// The live kernel text of a run (what `wdtrace dis --live` lists): taken
// when the program's probes are in the text, before the guest runs on — for
// each kernel function a probe patched, its bytes as the image has them (the
// tracepoint table's originals) and as the guest would fetch them now, and
// the probes placed at each address. Disassembled on request with the CPU
// cores' own decoders, so the page can show the image's instruction next to
// the breakpoint that replaced it. Worker side; reads the machine only.
import type { ProbeRegistry } from '@wdtrace/dtrace-core';
import type { KernelSymbol, Machine } from '@wdtrace/kernel';
import { tracepointsOf } from '@wdtrace/providers';
import { liveRows, placedProbes, type LiveRow } from '@wdtrace/session';

export type { LiveRow };

/** A function whose text a probe patched. */
export interface LiveFunction {
  /** `name`, or `module`name` outside the kernel proper (the key the page asks with). */
  readonly label: string;
  /** Instructions patched. */
  readonly patched: number;
}

interface Snapshot {
  readonly symbol: KernelSymbol;
  readonly image: Uint8Array;
  readonly live: Uint8Array;
}

export class LiveText {
  private constructor(
    private readonly machine: Machine,
    private readonly functions: ReadonlyMap<string, Snapshot>,
    private readonly probesAt: ReadonlyMap<bigint, readonly string[]>,
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
    return f && liveRows(this.machine, f.symbol, f.image, f.live, this.probesAt);
  }

  /** The number of instruction starts whose bytes differ (a breakpoint shorter than its instruction counts once). */
  private patchedInstructions(f: Snapshot): number {
    return [...this.probesAt.keys()].filter((a) => a >= f.symbol.address && a < f.symbol.address + BigInt(f.symbol.size)).filter((a) => {
      const off = Number(a - f.symbol.address);
      return f.image[off] !== f.live[off];
    }).length;
  }
}
