// uregs[] on x86-64, numbered as illumos numbers them for amd64 (its
// regs.d): 0-18 are the i386 registers in trap-frame order, read as their
// 64-bit counterparts (R_PC = R_EIP = 14 is rip, R_SP = R_UESP = 17 is
// rsp); 19 + n is the amd64 register n of <sys/regset.h> (R_RAX = 33).
// Each register is read from the CPU when the probe fired in user mode,
// else from the user frame the guest kernel saved (struct pt_regs, whose
// members carry the registers' names).
import type { RegisterFile } from '@wdtrace/kernel';
import type { UserRegister } from '../support.js';

/** Register numbers of RegisterFile.get: rax rcx rdx rbx rsp rbp rsi rdi r8-r15. */
const GPR: Record<string, number> = { rax: 0, rcx: 1, rdx: 2, rbx: 3, rsp: 4, rbp: 5, rsi: 6, rdi: 7, r8: 8, r9: 9, r10: 10, r11: 11, r12: 12, r13: 13, r14: 14, r15: 15 };

/** The i386 trap-frame order, as 64-bit registers. */
const I386 = ['gs', 'fs', 'es', 'ds', 'rdi', 'rsi', 'rbp', 'rsp', 'rbx', 'rdx', 'rcx', 'rax', 'trapno', 'err', 'rip', 'cs', 'rflags', 'rsp', 'ss'];
/** amd64's REG_* order. */
const AMD64 = ['r15', 'r14', 'r13', 'r12', 'r11', 'r10', 'r9', 'r8', 'rdi', 'rsi', 'rbp', 'rbx', 'rdx', 'rcx', 'rax', 'trapno', 'err', 'rip', 'cs', 'rflags', 'rsp', 'ss', 'fs', 'gs', 'es', 'ds', 'fsbase', 'gsbase'];
/** pt_regs members of registers the frame holds under another name. */
const MEMBER: Record<string, string> = { trapno: 'vector', err: 'error_code' };
/** Segment and base registers the guest's frame does not keep. */
const NOT_SAVED = new Set(['gs', 'fs', 'es', 'ds', 'fsbase', 'gsbase']);

function register(name: string): UserRegister {
  const live =
    name in GPR ? (r: RegisterFile) => r.get(GPR[name]!) : name === 'rip' ? (r: RegisterFile) => r.pc() : name === 'rflags' ? (r: RegisterFile) => BigInt(r.flags()) : undefined;
  return { name, saved: NOT_SAVED.has(name) ? undefined : { member: MEMBER[name] ?? name }, live };
}

export function x86UserRegister(index: number): UserRegister | undefined {
  const name = index < I386.length ? I386[index] : AMD64[index - I386.length];
  return name === undefined ? undefined : register(name);
}

/** The R_* names of D's regs.d for this numbering. */
export function x86RegsLibrary(): string {
  const names: [string, number][] = [];
  ['GS', 'FS', 'ES', 'DS', 'EDI', 'ESI', 'EBP', 'ESP', 'EBX', 'EDX', 'ECX', 'EAX', 'TRAPNO', 'ERR', 'EIP', 'CS', 'EFL', 'UESP', 'SS'].forEach((n, i) => names.push([n, i]));
  names.push(['PC', 14], ['SP', 17], ['PS', 16], ['R0', 11], ['R1', 8]);
  const amd64 = ['R15', 'R14', 'R13', 'R12', 'R11', 'R10', 'R9', 'R8', 'RDI', 'RSI', 'RBP', 'RBX', 'RDX', 'RCX', 'RAX', null, null, 'RIP', null, 'RFL', 'RSP', null];
  amd64.forEach((n, i) => n && names.push([n, I386.length + i]));
  return names.map(([n, v]) => `inline int R_${n} = ${v};\n`).join('');
}
