// DTrace support executed in WebAssembly: the fbt emulations of illumos for a
// displaced first byte (PUSH_RBP, POP_RBP, LEAVE, NOP, RET), execution of one
// displaced instruction at its original address, and side-effect-free guest
// virtual reads for NOFAULT loads.
import { decodeInstruction, saveDecoded, dForm, dMap, dOpcode, dPrefixes, PFX_F2, PFX_F3, DECODE_INPUT } from './decode';
import { setInsn, INSN_SCRATCH } from './insn';
import { HANDLERS } from './generated/dispatch';
import {
  rip, setRip, nextRip, setNextRip, reg64, setReg64, readV, writeV, faultVector, raise, VEC_UD, VEC_GP,
  translate, ACC_READ, setProbeOnly, probeFaultAddress, ramBase, ramSize, countRetired, cpl, setCpl,
} from './cpu';
import { setInsnRip } from './exec';
import { finishStop, formAllowed, STOP_NONE } from './run';
import { X86Emulation } from '../src/emulation';

/**
 * Performs the emulation `code` for the one-byte instruction an int3 replaced
 * at rip, then continues after it. Returns STOP_NONE, or a stop code if the
 * emulation faulted (the guest state is then unchanged).
 */
export function emulate(code: i32): i32 {
  const pc = rip;
  if (code == X86Emulation.pushRbp) {
    const sp = reg64(4) - 8;
    writeV(sp, 8, reg64(5));
    if (faultVector < 0) { setReg64(4, sp); setRip(pc + 1); }
  } else if (code == X86Emulation.popRbp) {
    const v = readV(reg64(4), 8);
    if (faultVector < 0) { setReg64(5, v); setReg64(4, reg64(4) + 8); setRip(pc + 1); }
  } else if (code == X86Emulation.leave) {
    const v = readV(reg64(5), 8);
    if (faultVector < 0) { setReg64(4, reg64(5) + 8); setReg64(5, v); setRip(pc + 1); }
  } else if (code == X86Emulation.nop) {
    setRip(pc + 1);
  } else if (code == X86Emulation.ret) {
    const t = readV(reg64(4), 8);
    if (faultVector < 0) { setReg64(4, reg64(4) + 8); setRip(t); }
  } else raise(VEC_UD, 0);
  if (faultVector >= 0) return finishStop();
  countRetired();
  return STOP_NONE;
}

/**
 * Executes the instruction whose `length` original bytes are at `input` (the
 * host places them at DECODE_INPUT; a fast site keeps its own) as if it sat
 * at `address` (= the current rip): RIP-relative operands, relative jumps
 * and calls, and ret behave exactly as in place. Returns STOP_NONE or a stop
 * code (state unchanged on a fault).
 */
export function executeDisplaced(length: i32, address: u64, input: usize = DECODE_INPUT): i32 {
  const len = decodeInstruction(input, length);
  if (len != length) { raise(len < 0 ? VEC_GP : VEC_UD, 0); return finishStop(); }
  // the handlers read the current instruction's record (never cached: the bytes are not guest RAM)
  saveDecoded(INSN_SCRATCH);
  store<u8>(INSN_SCRATCH, 0, 30);
  setInsn(INSN_SCRATCH);
  setRip(address);
  setInsnRip(address);
  // A REP string instruction does one iteration per call and asks to run again
  // at its own address; in place that address now holds the breakpoint, so the
  // remaining iterations run here (each retires as one, as in the run loop).
  const repString = dMap == 0 && (dPrefixes & (PFX_F2 | PFX_F3)) != 0 &&
    ((dOpcode >= 0xa4 && dOpcode <= 0xa7) || (dOpcode >= 0xaa && dOpcode <= 0xaf));
  for (;;) {
    setNextRip(address + <u64>len);
    if (!formAllowed()) return finishStop();
    unchecked(HANDLERS[dForm])();
    if (faultVector >= 0) return finishStop();
    if (!repString || nextRip != address) break;
    countRetired();
  }
  setRip(nextRip);
  countRetired();
  return STOP_NONE;
}

// ---- NOFAULT reads ---------------------------------------------------------------------
export const SAFE_BUFFER: usize = memory.data(4096, 16);
export let safeFaultAddress: u64 = 0;

/**
 * Copies `length` (<= 4096) bytes of guest virtual memory at `va` into
 * SAFE_BUFFER without faulting the guest or touching accessed/dirty bits.
 * Returns the number of bytes copied; when short, safeFaultAddress holds the
 * first address that could not be read. Device-window addresses count as
 * unreadable (a probe must not have side effects). Reads use kernel
 * privilege (U/S is not checked), as DTrace's probe context does.
 */
export function readVirtualSafe(va: u64, length: i32): i32 {
  if (length > 4096) length = 4096;
  // probe context reads with kernel privilege, whatever mode the CPU stopped in
  const savedCpl = cpl;
  setCpl(0);
  setProbeOnly(true);
  let done: i32 = 0;
  while (done < length) {
    const a = va + <u64>done;
    const pa = translate(a, ACC_READ);
    if (pa == <u64>-1) { safeFaultAddress = probeFaultAddress; break; }
    let n = <i32>(0x1000 - (a & 0xfff));
    if (n > length - done) n = length - done;
    if (pa + <u64>n > ramSize) { safeFaultAddress = pa < ramSize ? a + (ramSize - pa) : a; break; }
    memory.copy(SAFE_BUFFER + done, ramBase + <usize>pa, n);
    done += n;
  }
  setProbeOnly(false);
  setCpl(savedCpl);
  return done;
}
