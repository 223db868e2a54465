// Fast probe sites: probe sites whose firing the core can decide itself.
// A DTrace breakpoint (int3) stays patched into the guest's code and is what
// the core stops on; when the host has registered the int3's address as a
// fast site, the core first calls the site's filter (a WebAssembly function
// the host put into the core's function table, e.g. a D probe's predicates)
// with the CPU and the SysV argument registers:
//
//   filter(cpu, rdi, rsi, rdx, rcx) == 0  the firing does nothing: the core
//                                         performs the displaced instruction
//                                         itself, as the host's trap path
//                                         would (emulate, executeDisplaced),
//                                         counts the firing and runs on;
//   anything else                         the host's trap path, unchanged.
//
// The host owns the table's layout (it writes entries, the core reads
// them): FAST_SITES slots of FAST_SITE_SIZE bytes, open addressing with
// linear probing from fastSiteHash(rip), a slot of kind 0 ending a search
// (the host keeps at most half the slots used and rewrites the table
// whenever a site goes away).
//
//   0  u32 rip, low half        16 u32 emulation code, or the displaced length
//   4  u32 rip, high half       20 u32 unused
//   8  u32 filter's table index 24 u64 fast firings (the core adds 1 each)
//   12 u32 kind (FAST_*)        32 16 bytes: the displaced instruction
//
// The fast path is taken only where the host's path would do nothing else:
// the host switches it on (setFastSites) when the site's handler is the one
// the traps reach first and nobody listens to traps; the CPU is not in user
// mode (CPL 3: the kernel's table claims only kernel traps); and the CPU's
// retired count is below its limit (fastLimitsOffset), the count at which
// the host would find a device deadline passed at a trap and raise an
// interrupt (the host also sets it to 0 while the CPU's interrupt line is
// asserted: at a trap it raises such a line again).
import { rip, cpl, retired, cpuIndex, reg64, clearFault, MAX_CPUS } from './cpu';
import { emulate, executeDisplaced } from './dtrace';
import { STOP_NONE } from './run';

export const FAST_SITES: u32 = 1024;
export const FAST_SITE_SIZE: u32 = 48;
/** Entry kinds: none, an emulation code (X86Emulation), a displaced instruction's bytes. */
export const FAST_NONE: u32 = 0;
export const FAST_EMULATE: u32 = 1;
export const FAST_DISPLACED: u32 = 2;

const table: usize = memory.data(FAST_SITES * FAST_SITE_SIZE, 16);
/** Per CPU, a u64: the fast path is taken only while the CPU's retired count is below it. */
const limits: usize = memory.data(MAX_CPUS * 8, 8);
let enabled: bool = false;

/** Where the host writes the table and the limits. */
export function fastSitesOffset(): u32 { return u32(table); }
export function fastLimitsOffset(): u32 { return u32(limits); }
export function fastSiteCapacity(): u32 { return FAST_SITES; }
/** 1: DTrace breakpoints at fast sites may take the fast path; 0: every trap goes to the host. */
export function setFastSites(on: u32): void { enabled = on != 0; }

/** The first slot a rip's search looks at (the host computes the same from the low half). */
// @ts-ignore: decorator
@inline export function fastSiteHash(low: u32): u32 {
  return ((low >>> 4) ^ (low >>> 14)) & (FAST_SITES - 1);
}

/** Whether fast sites are on at all (a cheap test before fastTrap). */
// @ts-ignore: decorator
@inline export function fastSitesOn(): bool { return enabled; }

/** fastTrap's answers. */
export const FAST_NOT_TAKEN: i32 = 0;
export const FAST_TAKEN: i32 = 1;
export const FAST_STOPPED: i32 = 2;

/**
 * The fast path of the int3 the run loop just stopped at (its #BP pending,
 * rip at the int3). FAST_NOT_TAKEN: the host's trap path takes it (nothing
 * changed). FAST_TAKEN: the firing is counted and the displaced instruction
 * performed; the run goes on. FAST_STOPPED: the displaced instruction
 * faulted after the firing was counted; its stop is recorded (finishStop)
 * for the host, who delivers it as after the trap path's emulation.
 */
export function fastTrap(): i32 {
  const pc = rip;
  const low = u32(pc);
  const high = u32(pc >> 32);
  let i = fastSiteHash(low);
  let e: usize = 0;
  for (;;) {
    const at = table + usize(i) * FAST_SITE_SIZE;
    if (load<u32>(at, 12) == FAST_NONE) return FAST_NOT_TAKEN;
    if (load<u32>(at) == low && load<u32>(at, 4) == high) {
      e = at;
      break;
    }
    i = (i + 1) & (FAST_SITES - 1);
  }
  if (cpl == 3) return FAST_NOT_TAKEN;
  if (retired >= load<u64>(limits + (usize(cpuIndex) << 3))) return FAST_NOT_TAKEN;
  if (call_indirect<i32>(load<u32>(e, 8), cpuIndex, reg64(7), reg64(6), reg64(2), reg64(1)) != 0) return FAST_NOT_TAKEN;
  store<u64>(e, load<u64>(e, 24) + 1, 24);
  // What the host's trap path does after its handler said how: the #BP is
  // dropped and the displaced instruction performed at the int3's address.
  clearFault();
  const r = load<u32>(e, 12) == FAST_EMULATE
    ? emulate(i32(load<u32>(e, 16)))
    : executeDisplaced(i32(load<u32>(e, 16)), pc, e + 32);
  return r == STOP_NONE ? FAST_TAKEN : FAST_STOPPED;
}
