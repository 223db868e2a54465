// The KernelTarget of a booted @wdtrace/kernel Machine: its kernel image,
// SDT sites and modules (told by the module arena as krtld links them), its
// text patching, NOFAULT reads, registers and trap interposition. The
// machine is described structurally (MachineLike) so the providers depend on
// what they use, not on the machine's construction.
import { PT_LOAD, type ElfFile, type KernelSdtResult, type LinkedModule, type ModuleListener } from '@wdtrace/kernel';

import {
  kernelImageFromElf,
  moduleImageFromLinked,
  type InvopHandler,
  type KernelIsaName,
  type KernelModuleImage,
  type KernelTarget,
  type ModuleEvent,
  type RegisterFile,
  type SafeRead,
  ModuleEventListeners,
} from './kernel-target.js';

/** What the adapter uses of a Machine. */
export interface MachineLike {
  readonly isa: KernelIsaName;
  readonly kernel: ElfFile;
  readonly kernelSdt: KernelSdtResult;
  readonly modules: { addListener(listener: ModuleListener): () => void };
  registers(cpu: number): RegisterFile;
  addInvopHandler(handler: InvopHandler): () => void;
  readKernel(va: bigint, length: number): SafeRead;
  readText(va: bigint, length: number): Uint8Array;
  writeText(va: bigint, bytes: Uint8Array): void;
}

export interface MachineTargetOptions {
  /**
   * The ET_REL object of a module by name, for its DWARF and (ARM) its
   * mapping symbols. Without it a module still has its SDT probes; on ARM
   * its functions are not walked, since literal pools could not be told
   * from code.
   */
  moduleObject?(name: string): Uint8Array | undefined;
}

/** A module known only from krtld's link result. */
function bareModuleImage(linked: LinkedModule): KernelModuleImage {
  return {
    name: linked.name,
    functions:
      linked.isa === 'arm'
        ? []
        : linked.symbols
            .filter((s) => s.isFunction && s.size > 0)
            .map((s) => ({ module: linked.name, name: s.name, address: s.address, size: s.size }))
            .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)),
    dataRanges: [],
    sdtSites: linked.sites,
    dwarf: () => undefined,
  };
}

class MachineKernelTarget implements KernelTarget {
  readonly isa: KernelIsaName;
  private readonly images: KernelModuleImage[];
  private readonly listeners = new ModuleEventListeners();
  /** Link address minus load address of the kernel's segments, where they differ. */
  private readonly aliases: readonly bigint[];

  constructor(
    private readonly machine: MachineLike,
    options: MachineTargetOptions,
  ) {
    this.isa = machine.isa;
    this.aliases = [...new Set(machine.kernel.programHeaders.filter((p) => p.type === PT_LOAD && p.vaddr !== p.paddr).map((p) => p.vaddr - p.paddr))];
    // The machine already processed the kernel's SDT sites: use its record.
    this.images = [kernelImageFromElf(machine.kernel, 'kernel', machine.kernelSdt.sites)];
    machine.modules.addListener({
      loaded: (linked) => {
        const object = options.moduleObject?.(linked.name);
        const image = object ? moduleImageFromLinked(linked, object) : bareModuleImage(linked);
        this.images.push(image);
        this.listeners.emit({ kind: 'load', module: image });
      },
      unloaded: (linked) => {
        const i = this.images.findIndex((m) => m.name === linked.name);
        if (i < 0) return;
        const [image] = this.images.splice(i, 1);
        this.listeners.emit({ kind: 'unload', module: image! });
      },
    });
  }

  modules(): readonly KernelModuleImage[] {
    return this.images;
  }
  onModuleEvent(listener: (e: ModuleEvent) => void): () => void {
    return this.listeners.add(listener);
  }
  readText(va: bigint, length: number): Uint8Array {
    return this.machine.readText(va, length);
  }
  writeText(va: bigint, bytes: Uint8Array): void {
    this.machine.writeText(va, bytes);
  }
  readKernel(va: bigint, length: number): SafeRead {
    return this.machine.readKernel(va, length);
  }
  registers(cpu: number): RegisterFile {
    return this.machine.registers(cpu);
  }
  addInvopHandler(handler: InvopHandler): () => void {
    return this.machine.addInvopHandler(handler);
  }
  textAliases(): readonly bigint[] {
    return this.aliases;
  }
}

/** The kernel providers' view of a Machine. */
export function machineKernelTarget(machine: MachineLike, options: MachineTargetOptions = {}): KernelTarget {
  return new MachineKernelTarget(machine, options);
}

