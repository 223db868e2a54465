// Decoding kernel functions for the providers, with a per-function cache:
// the text is read with every installed patch taken out, so a function
// decodes the same whatever is enabled.
import type { KernelFunction, KernelModuleImage, Machine } from '@wdtrace/kernel';
import type { DecodedFunction, IsaSupport } from './isa/index.js';
import { tracepointsOf } from './tracepoints.js';

export class KernelText {
  private readonly cache = new Map<string, DecodedFunction>();

  constructor(
    readonly machine: Machine,
    readonly support: IsaSupport,
  ) {}

  /** The function's instructions (unpatched text). */
  decode(module: KernelModuleImage, fn: KernelFunction): DecodedFunction {
    const key = `${module.name}\u0000${fn.name}\u0000${fn.address}`;
    let d = this.cache.get(key);
    if (!d) {
      const bytes = tracepointsOf(this.machine).readOriginal(fn.address, fn.size);
      d = this.support.decode(bytes, fn.address, module.dataRanges, fn.thumb);
      this.cache.set(key, d);
    }
    return d;
  }

  /** Forget a module's functions (it was unloaded). */
  forget(moduleName: string): void {
    for (const k of [...this.cache.keys()]) if (k.startsWith(`${moduleName}\u0000`)) this.cache.delete(k);
  }
}

/** Functions of a module, each name once (the first of same-named static functions). */
export function uniqueFunctions(module: KernelModuleImage): KernelFunction[] {
  const seen = new Set<string>();
  const out: KernelFunction[] = [];
  for (const f of module.functions) {
    if (seen.has(f.name)) continue;
    seen.add(f.name);
    out.push(f);
  }
  return out;
}
