// Replays differential cases on the WebAssembly core: writes the case's
// instruction at CODE_ADDRESS (a T32 case's IT instruction and nops before
// it), its buffer at the harness's address, sets r0-r12 and APSR (User
// mode, Thumb state for T32), runs the case and reports the final state in
// the same shape as scripts/qemu-diff.mjs.
import { BUFFER_SIZE, fnv1a } from './diff-cases.mjs';
import { caseHalfwords } from './diff-cases-t32.mjs';

export const CODE_ADDRESS = 0x1000;
export const REPLAY_RAM = 8 << 20;

/** Sets the core up for replays (one CPU, User mode, all exceptions stop). */
export function prepareCore(core) {
  if (core.init(1, REPLAY_RAM) !== 0) throw new Error('core init failed');
  core.setStopMask(0, 0x3fe);
  core.setCpsr(0, 0x10);
}

/** Runs one A32 case (k.word) or T32 case (k.value); returns { regs, apsr, bufferHash, stop }. */
export function replayCase(core, k, bufferAddress) {
  const ram = new Uint8Array(core.memory.buffer, core.ramOffset(), core.ramBytes());
  const view = new DataView(core.memory.buffer, core.ramOffset(), core.ramBytes());
  const thumb = k.word === undefined;
  let steps = 1;
  if (thumb) {
    const halfwords = [...caseHalfwords(k), 0xde01]; // udf: stops if the pc ran on
    halfwords.forEach((h, i) => view.setUint16(CODE_ADDRESS + i * 2, h, true));
    core.invalidateCodeRange(CODE_ADDRESS, halfwords.length * 2);
    steps = k.itLength ? k.itLength + 1 : 1;
  } else {
    view.setUint32(CODE_ADDRESS, k.word, true);
    view.setUint32(CODE_ADDRESS + 4, 0xe7f001f0, true); // udf: stops if the pc ran on
    core.invalidateCodeRange(CODE_ADDRESS, 8);
  }
  ram.set(k.buffer, bufferAddress);
  core.setCpsr(0, (k.apsr | 0x10 | (thumb ? 0x20 : 0)) >>> 0);
  for (let r = 0; r < 13; r++) core.setReg(0, r, k.regs[r]);
  core.setReg(0, 13, 0);
  core.setReg(0, 14, 0);
  core.setReg(0, 15, CODE_ADDRESS);
  const stop = core.run(0, steps);
  const regs = [];
  for (let r = 0; r < 13; r++) regs.push(core.getReg(0, r) >>> 0);
  const apsr = (core.getCpsr(0) & 0xf80f0000) >>> 0;
  const bufferHash = fnv1a(ram.subarray(bufferAddress, bufferAddress + BUFFER_SIZE));
  return { regs, apsr, bufferHash, stop, pc: core.getReg(0, 15) >>> 0 };
}

/** Differences between expected and actual state, as readable strings. */
export function differences(expected, actual) {
  const out = [];
  if (actual.stop !== 1) out.push(`stopped with reason ${actual.stop}`);
  for (let r = 0; r < 13; r++) if (expected.regs[r] !== actual.regs[r]) out.push(`r${r} 0x${actual.regs[r].toString(16)} != 0x${expected.regs[r].toString(16)}`);
  if (expected.apsr !== actual.apsr) out.push(`apsr 0x${actual.apsr.toString(16)} != 0x${expected.apsr.toString(16)}`);
  if (expected.bufferHash !== actual.bufferHash) out.push('memory differs');
  return out;
}
