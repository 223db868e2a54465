// The instruction being executed, as the handlers see it: `insn` points at
// its 64-byte decoded record (layout in decode.ts, saveDecoded) — the
// decoded-instruction cache record itself when it came from the cache, or
// INSN_SCRATCH after a fresh decode that is not cached. Handlers read the
// fields through the accessors below instead of the run loop copying every
// field into globals before each instruction.

/** Record of an instruction decoded outside the cache (page-crossing, cache off, displaced). */
export const INSN_SCRATCH: usize = memory.data(64, 16);
export let insn: usize = INSN_SCRATCH;
export function setInsn(record: usize): void { insn = record; }

// @ts-ignore: decorator
@inline export function dForm(): i32 { return <i32>load<u16>(insn, 12); }
// @ts-ignore: decorator
@inline export function dLength(): i32 { return <i32>load<u8>(insn, 14); }
// @ts-ignore: decorator
@inline export function dOpcode(): u32 { return <u32>load<u8>(insn, 15); }
// @ts-ignore: decorator
@inline export function dMap(): u32 { return <u32>load<u8>(insn, 16); }
// @ts-ignore: decorator
@inline export function dOpSize(): i32 { return <i32>load<u8>(insn, 17); }
// @ts-ignore: decorator
@inline export function dReg(): u32 { return <u32>load<u8>(insn, 18); }
// @ts-ignore: decorator
@inline export function dRm(): u32 { return <u32>load<u8>(insn, 19); }
// @ts-ignore: decorator
@inline export function dMod(): u32 { return <u32>load<u8>(insn, 20); }
// @ts-ignore: decorator
@inline export function dModrm(): u32 { return <u32>load<u8>(insn, 21); }
// @ts-ignore: decorator
@inline export function dRex(): u32 { return <u32>load<u8>(insn, 22); }
// @ts-ignore: decorator
@inline export function dRipRel(): bool { return (load<u8>(insn, 23) & 1) != 0; }
// @ts-ignore: decorator
@inline export function dAddr32(): bool { return (load<u8>(insn, 23) & 2) != 0; }
// @ts-ignore: decorator
@inline export function dHasModrm(): bool { return (load<u8>(insn, 23) & 4) != 0; }
// @ts-ignore: decorator
@inline export function dBase(): i32 { return <i32>load<i8>(insn, 24); }
// @ts-ignore: decorator
@inline export function dIndex(): i32 { return <i32>load<i8>(insn, 25); }
// @ts-ignore: decorator
@inline export function dScale(): u32 { return <u32>load<u8>(insn, 26); }
// @ts-ignore: decorator
@inline export function dSeg(): u32 { return <u32>load<u8>(insn, 27); }
// @ts-ignore: decorator
@inline export function dOpReg(): u32 { return <u32>load<u8>(insn, 28); }
// @ts-ignore: decorator
@inline export function dPrefixes(): u32 { return <u32>load<u8>(insn, 29); }
/** Index into generated/fast.ts FAST, 0 for the form's generic handler (set by the run loop). */
// @ts-ignore: decorator
@inline export function dFast(): u32 { return <u32>load<u8>(insn, 30); }
// @ts-ignore: decorator
@inline export function dImm(): i64 { return load<i64>(insn, 32); }
// @ts-ignore: decorator
@inline export function dImm2(): i64 { return load<i64>(insn, 40); }
// @ts-ignore: decorator
@inline export function dDisp(): i64 { return load<i64>(insn, 48); }
