// uregs[] on ARM, numbered as the ARM ports of DTrace number them (regs.d):
// R_R0-R_R15 are r0-r15 (R_SP = 13, R_LR = 14, R_PC = 15, R_FP = r11 in
// the AAPCS frames this guest's code keeps) and R_CPSR is 16. Each register
// is read from the CPU when the probe fired in user mode, else from the
// user frame the guest kernel saved (struct pt_regs: r[13], sp_usr,
// lr_usr, pc, cpsr).
import type { RegisterFile } from '@wdtrace/kernel';
import type { UserRegister, SavedRegister } from '../support.js';

function saved(index: number): SavedRegister {
  if (index < 13) return { member: 'r', index };
  return { member: ['sp_usr', 'lr_usr', 'pc', 'cpsr'][index - 13]! };
}

export function armUserRegister(index: number): UserRegister | undefined {
  if (!Number.isInteger(index) || index < 0 || index > 16) return undefined;
  const live = index === 15 ? (r: RegisterFile) => r.pc() : index === 16 ? (r: RegisterFile) => BigInt(r.flags()) : (r: RegisterFile) => r.get(index);
  return { name: index === 16 ? 'cpsr' : `r${index}`, saved: saved(index), live };
}

/** The R_* names of D's regs.d for this numbering. */
export function armRegsLibrary(): string {
  const names: [string, number][] = [];
  for (let i = 0; i <= 15; i++) names.push([`R${i}`, i]);
  names.push(['FP', 11], ['SP', 13], ['LR', 14], ['PC', 15], ['CPSR', 16]);
  return names.map(([n, v]) => `inline int R_${n} = ${v};\n`).join('');
}
