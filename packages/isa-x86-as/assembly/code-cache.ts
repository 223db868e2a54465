// Decoded-instruction cache, keyed by the physical address of an
// instruction's first byte. Correctness rule: a cached decode is used only if
// no byte of its page (or of the next page it may run into) was written since
// it was decoded. Each RAM page has a generation number and a "holds cached
// code" flag; a write to a flagged page bumps the generation of that page and
// of the page before it (an instruction starting there may extend into it),
// which retires every record decoded from them. The guest's own stores reach
// this through cpu.ts physWrite; the host must call codeWritten() after it
// changes guest RAM directly (DTrace patching does).

const ENTRIES: u32 = 32768;
const RECORD: u32 = 64;
export let cacheBase: usize = 0;
export let pageGen: usize = 0; // u32 per RAM page
export let pageHasCode: usize = 0; // u8 per RAM page
export let pageCount: u32 = 0;
export let cacheEnabled: bool = true;

export function setCacheEnabled(v: bool): void { cacheEnabled = v; flushCodeCache(); }

/** Allocates the cache and the per-page tables for `pages` RAM pages (from linear memory after RAM). */
export function initCodeCache(pages: u32): bool {
  const bytes = <u64>ENTRIES * RECORD + <u64>pages * 5 + 16;
  const grow = <i32>((bytes + 0xffff) >> 16);
  const old = memory.grow(grow);
  if (old < 0) return false;
  cacheBase = <usize>old << 16;
  pageGen = cacheBase + <usize>ENTRIES * RECORD;
  pageHasCode = pageGen + <usize>pages * 4;
  pageCount = pages;
  return true;
}

export function flushCodeCache(): void {
  if (cacheBase == 0) return;
  memory.fill(cacheBase, 0, <usize>ENTRIES * RECORD);
}

// @ts-ignore: decorator
@inline export function cacheSlot(pa: u64): usize {
  return cacheBase + (<usize>((<u32>pa ^ (<u32>pa >> 15)) & (ENTRIES - 1)) << 6);
}

/** The record for `pa` if valid, else 0. */
// @ts-ignore: decorator
@inline export function cacheLookup(pa: u64): usize {
  const e = cacheSlot(pa);
  if (load<u64>(e) != pa + 1) return 0;
  if (load<u32>(e, 8) != load<u32>(pageGen + (<usize>(pa >> 12) << 2))) return 0;
  return e;
}

/** Claims the slot for `pa` (the caller then saves the decode into it). */
export function cacheClaim(pa: u64, length: i32): usize {
  const page = <usize>(pa >> 12);
  const e = cacheSlot(pa);
  store<u64>(e, pa + 1);
  store<u32>(e, load<u32>(pageGen + (page << 2)), 8);
  store<u8>(pageHasCode + page, 1);
  // an instruction that crosses into the next page depends on it too
  if (((pa & 0xfff) + <u64>length) > 0x1000 && <u32>(page + 1) < pageCount) store<u8>(pageHasCode + page + 1, 1);
  return e;
}

/** Records a write of `size` bytes at physical `pa` (RAM only). */
// @ts-ignore: decorator
@inline export function noteWrite(pa: u64, size: i32): void {
  const page = <usize>(pa >> 12);
  if (load<u8>(pageHasCode + page) != 0) retirePage(page);
  const last = <usize>((pa + <u64>size - 1) >> 12);
  if (last != page && load<u8>(pageHasCode + last) != 0) retirePage(last);
}

function retirePage(page: usize): void {
  store<u8>(pageHasCode + page, 0);
  store<u32>(pageGen + (page << 2), load<u32>(pageGen + (page << 2)) + 1);
  if (page > 0) {
    // records of the previous page may cross into this one
    store<u32>(pageGen + ((page - 1) << 2), load<u32>(pageGen + ((page - 1) << 2)) + 1);
  }
}

/** Host notification: guest RAM [pa, pa + length) was changed from outside. */
export function codeWritten(pa: u64, length: u32): void {
  if (cacheBase == 0 || length == 0) return;
  let p = <usize>(pa >> 12);
  const last = <usize>((pa + <u64>length - 1) >> 12);
  for (; p <= last && <u32>p < pageCount; p++) retirePage(p);
}
