// Fast probe sites: probe sites whose firing the core can decide itself.
// A DTrace breakpoint stays patched into the guest's code and is what the
// core stops on; when the host has registered the breakpoint's pc as a fast
// site, the core first calls the site's filter (a WebAssembly function the
// host put into the core's function table, e.g. a D probe's predicates):
//
//   filter(cpu, r0, r1, r2, r3) == 0  the firing does nothing: the core
//                                     performs the displaced instruction
//                                     itself, as the host's emulation would,
//                                     counts the firing and runs on;
//   anything else                     the host's trap path, unchanged.
//
// The host owns the table's layout (it writes entries, the core reads
// them): FAST_SITES slots of FAST_SITE_SIZE bytes, open addressing with
// linear probing from fastSiteHash(pc), a slot of kind 0 ending a search
// (the host keeps at most half the slots used and rewrites the table
// whenever a site goes away).
//
//   0  u32 pc                  16 u32 the A32 word (emulate: its word)
//   4  u32 filter's table index 20 u32 unused
//   8  u32 kind (FAST_*)        24 u64 fast firings (the core adds 1 each)
//   12 u32 emulation code, or the T32 value (first << 16 | second halfword)
//
// The fast path is taken only where the host's path would do nothing else:
// the host switches it on (setFastSites) when the site's handler is the one
// the traps reach first and nobody listens to traps; the CPU is not in user
// mode (the kernel's table claims only kernel traps); and the CPU's retired
// count is below its limit (fastLimits), the count at which the host would
// find a device deadline passed at a trap and raise an interrupt.
import { S, st, setSt, reg, currentMode, MODE_USR, RETIRED, STOP_PC, PENDING_EXC, CPSR_CTL, PSR_T, setLiveDone } from './state';
import { emulate } from './dtrace';
import { executeDecoded, executeDecodedT32, decodeThumbValue, takeException } from './run';
import { decodeA32 } from './generated/a32-decoder';

export const FAST_SITES: u32 = 1024;
export const FAST_SITE_SIZE: u32 = 32;
/** Entry kinds: none, an emulation code, a displaced 4-byte instruction (A32 word or T32 value, by CPSR.T), a displaced 16-bit T32 one. */
export const FAST_NONE: u32 = 0;
export const FAST_EMULATE: u32 = 1;
export const FAST_DISPLACED: u32 = 2;
export const FAST_DISPLACED_T16: u32 = 3;
const MAX_CPUS: u32 = 64;

const table: usize = memory.data(FAST_SITES * FAST_SITE_SIZE, 16);
/** Per CPU, a u64: the fast path is taken only while RETIRED (plus the run's count) is below it. */
const limits: usize = memory.data(MAX_CPUS * 8, 8);
let enabled: bool = false;

/** Where the host writes the table and the limits. */
export function fastSitesOffset(): u32 { return u32(table); }
export function fastLimitsOffset(): u32 { return u32(limits); }
export function fastSiteCapacity(): u32 { return FAST_SITES; }
/** 1: DTrace breakpoints at fast sites may take the fast path; 0: every trap goes to the host. */
export function setFastSites(on: u32): void { enabled = on != 0; }

/** The first slot a pc's search looks at (the host computes the same). */
@inline export function fastSiteHash(pc: u32): u32 {
  return ((pc >>> 1) ^ (pc >>> 13)) & (FAST_SITES - 1);
}

/** Whether fast sites are on at all (a cheap test before fastTrap). */
@inline export function fastSitesOn(): bool { return enabled; }

/**
 * The fast path of a DTrace breakpoint stop (recorded by stopWith: STOP_PC,
 * PENDING_EXC, r15 = the breakpoint) on the running CPU `cpu`, `done`
 * instructions into the run and not yet retired. Returns how many
 * instructions the run took for it (the run's `done` retired, then the
 * displaced instruction's own) plus 1, or 0 when the host's path must take
 * the trap (nothing changed then).
 */
export function fastTrap(cpu: u32, done: u32): u32 {
  const pc = st(STOP_PC);
  let i = fastSiteHash(pc);
  let e: usize = 0;
  for (;;) {
    const at = table + usize(i) * FAST_SITE_SIZE;
    const kind = load<u32>(at, 8);
    if (kind == FAST_NONE) return 0;
    if (load<u32>(at) == pc) {
      e = at;
      break;
    }
    i = (i + 1) & (FAST_SITES - 1);
  }
  if (currentMode() == MODE_USR) return 0;
  const before = load<u64>(S + RETIRED) + u64(done);
  if (before >= load<u64>(limits + usize(cpu) * 8)) return 0;
  const kind = load<u32>(e, 8);
  const thumb = (st(CPSR_CTL) & PSR_T) != 0;
  if (kind == FAST_DISPLACED_T16 && !thumb) return 0;
  if (call_indirect<i32>(load<u32>(e, 4), i32(cpu), u64(reg(0)), u64(reg(1)), u64(reg(2)), u64(reg(3))) != 0) return 0;
  store<u64>(e, load<u64>(e, 24) + 1, 24);
  // What the host's trap path does after its handler said how: the run's
  // instructions retire, the pending exception is dropped, the displaced
  // instruction is performed at the breakpoint's address.
  store<u64>(S + RETIRED, before);
  setLiveDone(0);
  setSt(PENDING_EXC, 0);
  let r: u32;
  if (kind == FAST_EMULATE) r = emulate(cpu, load<u32>(e, 12), load<u32>(e, 16), pc);
  else if (thumb) {
    const value = load<u32>(e, 12);
    r = executeDecodedT32(value, pc, decodeThumbValue(value));
  } else {
    const word = load<u32>(e, 16);
    r = executeDecoded(word, pc, decodeA32(word));
  }
  if (r != 0) {
    // A displaced instruction that stopped: the host would deliver its
    // exception to the guest (a wfi's halt, WAITING set, the run loop reports).
    const exc = st(PENDING_EXC);
    if (exc != 0) {
      setSt(PENDING_EXC, 0);
      takeException(exc, st(STOP_PC));
    }
  }
  return u32(load<u64>(S + RETIRED) - before) + done + 1;
}
