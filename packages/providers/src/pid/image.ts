// A user program as the pid provider sees it: the static ELF executable a
// process runs (the guest runs static executables only, so one object holds
// all its code), its functions from the ELF symbol table, ARM's literal
// pools from the mapping symbols, and each function's instructions decoded
// from the file's bytes — what the process's text holds at exec, before any
// tracepoint.
import { PT_LOAD, kernelImageFromElf, parseElf, type ElfFile, type KernelFunction, type KernelModuleImage } from '@wdtrace/kernel';
import type { DecodedFunction, IsaSupport } from '../isa/index.js';

export class ProgramImage {
  /** The module name of its probes: the file's base name, as fasttrap names the object. */
  readonly module: string;
  /** Function symbols, each name once, sorted by address. */
  readonly functions: readonly KernelFunction[];
  readonly elf: ElfFile;
  private readonly layout: KernelModuleImage;
  private readonly decoded = new Map<string, DecodedFunction>();

  /** Throws ElfError for a file that is no ELF object. */
  constructor(
    readonly path: string,
    readonly bytes: Uint8Array,
    private readonly support: IsaSupport,
  ) {
    this.module = path.slice(path.lastIndexOf('/') + 1);
    this.elf = parseElf(bytes);
    this.layout = kernelImageFromElf(this.elf, [], this.module);
    // ARM: Thumb functions (odd symbol values) are decoded as T32 code (KernelFunction.thumb).
    const seen = new Set<string>();
    this.functions = this.layout.functions.filter((f) => {
      if (seen.has(f.name)) return false;
      seen.add(f.name);
      return true;
    });
  }

  function(name: string): KernelFunction | undefined {
    return this.functions.find((f) => f.name === name);
  }

  /** The file's bytes at [address, address + length) as the loader maps them, undefined outside its segments. */
  fileBytes(address: bigint, length: number): Uint8Array | undefined {
    for (const ph of this.elf.programHeaders) {
      if (ph.type !== PT_LOAD || address < ph.vaddr || address + BigInt(length) > ph.vaddr + BigInt(ph.filesz)) continue;
      const off = ph.offset + Number(address - ph.vaddr);
      return this.bytes.subarray(off, off + length);
    }
    return undefined;
  }

  /** A function's instructions, decoded from the file. */
  decode(fn: KernelFunction): DecodedFunction {
    let d = this.decoded.get(fn.name);
    if (!d) {
      const bytes = this.fileBytes(fn.address, fn.size);
      d = bytes ? this.support.decode(bytes, fn.address, this.layout.dataRanges, fn.thumb) : { insns: [], complete: false, stoppedAt: { address: fn.address, reason: 'the function is outside the loaded segments' } };
      this.decoded.set(fn.name, d);
    }
    return d;
  }
}
