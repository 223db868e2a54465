// Module placement in the guest kernel's kmod_arena and the kmod_table
// handoff (BOARD.md section 8): picks an address for each module, links it
// there, and produces the ordered memory writes that load it — sections
// first, then the slot, whose ks_state word is written last so the kernel
// never sees a half-written module. Works the same at boot and later while
// tracing runs; the returned sites go to the sdt provider.

import { linkModule, KrtldError, type LinkedModule, type MemorySegment, type SymbolResolver } from './link.js';
import { WORD_BYTES, type Isa } from '../isa.js';

/** ks_state values of struct kmod_slot. */
export const KMOD_STATE = { free: 0, loaded: 1, running: 2, unloadRequested: 3, unloaded: 4, initFailed: 5 } as const;

/** Bytes in ks_name, including the terminating NUL. */
export const KMOD_NAME_SIZE = 32;

/** Where the kernel keeps its module arena and table (from its symbol table). */
export interface KmodLayout {
  readonly isa: Isa;
  readonly arena: bigint;
  readonly arenaSize: number;
  readonly table: bigint;
  readonly slots: number;
}

/** One write into guest memory (kernel virtual address). */
export interface GuestWrite {
  readonly address: bigint;
  readonly bytes: Uint8Array;
  readonly what: string;
}

export interface ModuleLoad {
  readonly module: LinkedModule;
  readonly slot: number;
  /** Apply in order: sections, slot fields, then ks_state = loaded. */
  readonly writes: readonly GuestWrite[];
}

/** Size in bytes of struct kmod_slot for an ISA (six words and the name). */
export function kmodSlotSize(isa: Isa): number {
  return 6 * WORD_BYTES[isa] + KMOD_NAME_SIZE;
}

/** Encode a kmod_slot (ks_state included) as the guest lays it out. */
export function encodeKmodSlot(isa: Isa, fields: { state: number; base: bigint; size: number; init: bigint; fini: bigint; status: bigint; name: string }): Uint8Array {
  const w = WORD_BYTES[isa];
  const out = new Uint8Array(kmodSlotSize(isa));
  const dv = new DataView(out.buffer);
  const put = (i: number, v: bigint): void => {
    if (w === 8) dv.setBigUint64(i * w, BigInt.asUintN(64, v), true);
    else dv.setUint32(i * w, Number(BigInt.asUintN(32, v)), true);
  };
  put(0, BigInt(fields.state));
  put(1, fields.base);
  put(2, BigInt(fields.size));
  put(3, fields.init);
  put(4, fields.fini);
  put(5, fields.status);
  const name = new TextEncoder().encode(fields.name);
  if (name.length >= KMOD_NAME_SIZE) throw new KrtldError(`module name "${fields.name}" is longer than ${KMOD_NAME_SIZE - 1} bytes`);
  out.set(name, 6 * w);
  return out;
}

const PAGE = 4096n;

/**
 * Told about modules as they come and go (the sdt provider registers its
 * probes for module.sites; the symbol table adds module.symbols). Called
 * after the writes are planned: the caller applies them before the kernel
 * can run the module, so a probe may be enabled before _init runs.
 */
export interface ModuleListener {
  loaded?(module: LinkedModule): void;
  unloaded?(module: LinkedModule): void;
}

/** Tracks which parts of kmod_arena and which slots are in use. */
export class KmodArena {
  private readonly used: { name: string; start: bigint; end: bigint; slot: number; module: LinkedModule }[] = [];
  private readonly listeners: ModuleListener[] = [];

  constructor(
    readonly layout: KmodLayout,
    private readonly resolve: SymbolResolver,
  ) {
    if (layout.slots <= 0) throw new KrtldError('kmod_table has no slots');
  }

  /** Find the arena and table through kernel symbols (kmod_arena, kmod_table and their sizes). */
  static layoutFrom(isa: Isa, lookup: (name: string) => { address: bigint; size: number } | undefined): KmodLayout {
    const arena = lookup('kmod_arena');
    const table = lookup('kmod_table');
    if (!arena) throw new KrtldError('the kernel has no kmod_arena symbol');
    if (!table) throw new KrtldError('the kernel has no kmod_table symbol');
    const slots = Math.floor(table.size / kmodSlotSize(isa));
    return { isa, arena: arena.address, arenaSize: arena.size, table: table.address, slots };
  }

  /** Register a listener; it is told of the modules already loaded first. Returns a remover. */
  addListener(listener: ModuleListener): () => void {
    this.listeners.push(listener);
    for (const u of this.used) listener.loaded?.(u.module);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** The linked module named `name`, if loaded. */
  module(name: string): LinkedModule | undefined {
    return this.used.find((u) => u.name === name)?.module;
  }

  get loaded(): readonly string[] {
    return this.used.map((u) => u.name);
  }

  /** Link `bytes` as module `name` into the first gap that fits, and describe the writes. */
  load(name: string, bytes: Uint8Array): ModuleLoad {
    if (this.used.some((u) => u.name === name)) throw new KrtldError(`module ${name} is already loaded`);
    const slot = [...Array(this.layout.slots).keys()].find((i) => !this.used.some((u) => u.slot === i));
    if (slot === undefined) throw new KrtldError(`no free kmod_table slot for ${name} (${this.layout.slots} in use)`);
    const end = this.layout.arena + BigInt(this.layout.arenaSize);
    const sorted = [...this.used].sort((a, b) => (a.start < b.start ? -1 : 1));
    let lastError: unknown;
    // Try each gap from the lowest; the size is only known after linking.
    const starts = [this.layout.arena, ...sorted.map((u) => ((u.end + PAGE - 1n) / PAGE) * PAGE)];
    for (const start of starts) {
      const next = sorted.find((u) => u.start >= start);
      const limit = Number((next ? next.start : end) - start);
      if (limit <= 0) continue;
      let module: LinkedModule;
      try {
        module = linkModule(bytes, { name, base: start, resolve: this.resolve, limit });
      } catch (e) {
        if (e instanceof KrtldError && /needs \d+ bytes/.test(e.message)) {
          lastError = e;
          continue;
        }
        throw e;
      }
      if (module.init === undefined) throw new KrtldError(`${name}: no _init function`);
      this.used.push({ name, start, end: start + BigInt(module.size), slot, module });
      const slotAddress = this.layout.table + BigInt(slot * kmodSlotSize(this.layout.isa));
      const body = encodeKmodSlot(this.layout.isa, { state: KMOD_STATE.free, base: module.base, size: module.size, init: module.init, fini: module.fini ?? 0n, status: 0n, name });
      const w = WORD_BYTES[this.layout.isa];
      const state = encodeKmodSlot(this.layout.isa, { state: KMOD_STATE.loaded, base: 0n, size: 0, init: 0n, fini: 0n, status: 0n, name: '' }).slice(0, w);
      const writes: GuestWrite[] = [
        ...module.segments.map((s: MemorySegment) => ({ address: s.address, bytes: s.bytes, what: `${name} ${s.section}` })),
        { address: slotAddress + BigInt(w), bytes: body.slice(w), what: `kmod_table[${slot}] fields` },
        { address: slotAddress, bytes: state, what: `kmod_table[${slot}].ks_state = loaded` },
      ];
      for (const l of this.listeners) l.loaded?.(module);
      return { module, slot, writes };
    }
    throw lastError instanceof KrtldError ? new KrtldError(`${name}: does not fit in kmod_arena (${lastError.message})`) : new KrtldError(`${name}: kmod_arena is full`);
  }

  /** Forget a module once the kernel reports it unloaded (ks_state 4). */
  release(name: string): void {
    const i = this.used.findIndex((u) => u.name === name);
    if (i < 0) throw new KrtldError(`module ${name} is not loaded`);
    const [gone] = this.used.splice(i, 1);
    for (const l of this.listeners) l.unloaded?.(gone!.module);
  }
}
