// Host accessors of the ARMv7-A core: where RAM and CPU state live, register
// and PSR access for the host, stop details, side-effect-free guest reads,
// and code-cache invalidation after host writes to guest RAM.
import {
  selectCpu, reg, setRegRaw, st, setSt, readCpsr, writeCpsr, bankedReg, setBankedReg, spsrOf, S, statesBase, STATE_SIZE, syncStates, liveDone,
  RETIRED, VFP_D, VFP_FPSCR, VFP_FPEXC, CP15_CPACR, STOP_REASON, STOP_PC, STOP_WORD, FAULT_ADDR, FAULT_STATUS, PENDING_EXC,
} from './state';
import { ramBase, ramSize, invalidateCode, peek, peekFailed, peekFaultAddr, tlbFlush } from './memory';

/** Byte offset of guest physical address 0 in linear memory. */
export function ramOffset(): u32 { return u32(ramBase); }
/** Guest RAM size in bytes. */
export function ramBytes(): u32 { return ramSize; }
/** Byte offset and size of a CPU's state block (layout in assembly/state.ts). */
export function stateOffset(cpu: u32): u32 { syncStates(); return u32(statesBase + usize(cpu) * STATE_SIZE); }
export function stateSize(): u32 { return STATE_SIZE; }
/**
 * Where a CPU's state can be read and written in place, with no call per
 * register: the active CPU's live block (its CPU_ID word names the CPU),
 * and the home blocks, current for every CPU but the active one. Unlike
 * stateOffset these copy nothing. Between calls a word of the live block
 * is what the accessors read and write (r0-r15, the stop details, the
 * retired count); CPSR control bits and banked copies need the accessors.
 */
export function activeStateOffset(): u32 { return u32(S); }
export function homeStateOffset(cpu: u32): u32 { return u32(statesBase + usize(cpu) * STATE_SIZE); }

/** Register n (0-15) of the current mode; r15 is the next instruction's address. */
export function getReg(cpu: u32, n: u32): u32 { selectCpu(cpu); return reg(n & 15); }
export function setReg(cpu: u32, n: u32, v: u32): void { selectCpu(cpu); setRegRaw(n & 15, v); }
/** Register n as seen in `mode` (banked copies). */
export function getBankedReg(cpu: u32, mode: u32, n: u32): u32 { selectCpu(cpu); return bankedReg(mode, n & 15); }
export function setBankedRegister(cpu: u32, mode: u32, n: u32, v: u32): void { selectCpu(cpu); setBankedReg(mode, n & 15, v); }
export function getCpsr(cpu: u32): u32 { selectCpu(cpu); return readCpsr(); }
export function setCpsr(cpu: u32, v: u32): void { selectCpu(cpu); writeCpsr(v); }
/** SPSR of `mode` (0 for modes without one). */
export function getSpsr(cpu: u32, mode: u32): u32 { selectCpu(cpu); const at = spsrOf(mode); return at ? st(at) : 0; }
export function setSpsr(cpu: u32, mode: u32, v: u32): void { selectCpu(cpu); const at = spsrOf(mode); if (at) setSt(at, v); }

/**
 * VFP state, one word at a time: 0-31 are s0-s31 (s2n and s2n+1 the low and
 * high words of dn), 32 is FPSCR, 33 FPEXC and 34 CPACR (whose cp10/cp11
 * fields and FPEXC.EN gate VFP); anything else reads 0 and is not written.
 */
export function getVfpWord(cpu: u32, index: u32): u32 { selectCpu(cpu); return index < 35 ? st(vfpOffset(index)) : 0; }
export function setVfpWord(cpu: u32, index: u32, v: u32): void { selectCpu(cpu); if (index < 35) setSt(vfpOffset(index), v); }
function vfpOffset(index: u32): u32 {
  if (index < 32) return VFP_D + index * 4;
  return index == 32 ? VFP_FPSCR : index == 33 ? VFP_FPEXC : CP15_CPACR;
}

/**
 * Retired instructions (low and high words; the counter is 64-bit). From a
 * device callback during run() this is the running CPU's count up to, not
 * including, the instruction making the access.
 */
export function retiredLow(cpu: u32): u32 { selectCpu(cpu); return u32(retired64()); }
export function retiredHigh(cpu: u32): u32 { selectCpu(cpu); return u32(retired64() >> 32); }
function retired64(): u64 { return load<u64>(S + RETIRED) + u64(liveDone); }

export function stopReason(cpu: u32): u32 { selectCpu(cpu); return st(STOP_REASON); }
export function stopPc(cpu: u32): u32 { selectCpu(cpu); return st(STOP_PC); }
export function stopWord(cpu: u32): u32 { selectCpu(cpu); return st(STOP_WORD); }
export function faultAddress(cpu: u32): u32 { selectCpu(cpu); return st(FAULT_ADDR); }
export function faultStatus(cpu: u32): u32 { selectCpu(cpu); return st(FAULT_STATUS); }
export function pendingException(cpu: u32): u32 { selectCpu(cpu); return st(PENDING_EXC); }
/** Drops the pending exception of a claimed stop (the host handled it). */
export function clearPending(cpu: u32): void { selectCpu(cpu); setSt(PENDING_EXC, 0); }

/** Must be called after the host writes guest RAM that may hold code. */
export function invalidateCodeRange(paddr: u32, len: u32): void { invalidateCode(paddr, len); }
export function flushTlb(cpu: u32): void { selectCpu(cpu); tlbFlush(); }

/**
 * Side-effect-free read of `size` (1, 2 or 4) bytes at guest virtual `va`
 * through cpu's current translation. On a fault returns 0 and
 * peekFault() is 1 with the faulting address in peekFaultAddress().
 */
export function readVirtual(cpu: u32, va: u32, size: u32): u32 {
  selectCpu(cpu);
  return peek(va, size > 4 ? 4 : size);
}
export function peekFault(): u32 { return peekFailed ? 1 : 0; }
export function peekFaultAddress(): u32 { return peekFaultAddr; }
