// The DIF verifier, after illumos dtrace_difo_validate(): runs once when a
// program is loaded so that the VM loop needs no checks. It rejects unknown
// opcodes, out-of-range registers, writes to %r0, backward or out-of-range
// branches (DIF has no loops), bad integer/string/variable/subroutine
// indexes, user variables missing from the variable table, and a DIFO that
// can run off its end; it reports whether the DIFO calls destructive
// subroutines. Messages are worded like the kernel's ("invalid register").

import { DIF_OPCODES, DIF_OP } from '../dif/opcodes.js';
import { DIF_DIR_NREGS, DIF_SUBR, DIF_SUBR_MAX, DIF_VAR_OTHER_UBASE, DIF_VAR_ARRAY_UBASE, DIFV_SCOPE_GLOBAL, DIFV_SCOPE_LOCAL, DIFV_SCOPE_THREAD } from '../dif/constants.js';
import type { Difo } from '../dif/difo.js';

export interface DifVerifyResult {
  readonly errors: readonly string[];
  readonly destructive: boolean;
}

const DESTRUCTIVE_SUBRS = new Set<number>([DIF_SUBR.COPYOUT, DIF_SUBR.COPYOUTSTR]);

export function verifyDifo(difo: Difo): DifVerifyResult {
  const errors: string[] = [];
  let destructive = false;
  const text = difo.buf;
  const n = text.length;
  const err = (pc: number, msg: string): void => {
    errors.push(`DIF instruction ${pc}: ${msg}`);
  };
  const hasVar = (scope: number, id: number): boolean => difo.vartab.some((v) => v.scope === scope && v.id === id);
  if (n === 0) errors.push('DIF object has no instructions');
  for (let pc = 0; pc < n; pc++) {
    const instr = text[pc]!;
    const op = instr >>> 24;
    const r1 = (instr >>> 16) & 0xff;
    const r2 = (instr >>> 8) & 0xff;
    const rd = instr & 0xff;
    const info = DIF_OPCODES[op];
    if (!info) {
      err(pc, `invalid opcode ${op}`);
      continue;
    }
    const index = (instr >>> 8) & 0xffff;
    const reg = (r: number, what: string): void => {
      if (r >= DIF_DIR_NREGS) err(pc, `invalid register ${what} %r${r}`);
    };
    switch (info.format) {
      case 'r1r2rd': reg(r1, 'r1'); reg(r2, 'r2'); reg(rd, 'rd'); break;
      case 'r1rd': reg(r1, 'r1'); reg(rd, 'rd'); break;
      case 'r1r2': reg(r1, 'r1'); reg(r2, 'r2'); break;
      case 'r1': reg(r1, 'r1'); break;
      case 'load': case 'store': reg(r1, 'r1'); reg(rd, 'rd'); break;
      case 'rd': reg(rd, 'rd'); break;
      case 'label': {
        const label = instr & 0xffffff;
        if (label >= n) err(pc, `invalid branch target ${label}`);
        else if (label <= pc) err(pc, `backward branch to ${label}`);
        break;
      }
      case 'setx':
        reg(rd, 'rd');
        if (index >= difo.inttab.length) err(pc, `invalid integer ref ${index}`);
        break;
      case 'sets':
        reg(rd, 'rd');
        if (index >= difo.strtab.length) err(pc, `invalid string ref ${index}`);
        break;
      case 'ldarray':
        reg(r2, 'ri');
        reg(rd, 'rd');
        if (r1 >= DIF_VAR_ARRAY_UBASE) err(pc, `invalid array variable ${r1}`);
        break;
      case 'ldvar':
      case 'stvar': {
        reg(rd, info.format === 'ldvar' ? 'rd' : 'rs');
        const scope =
          op === DIF_OP.LDLS || op === DIF_OP.STLS
            ? DIFV_SCOPE_LOCAL
            : op === DIF_OP.LDTS || op === DIF_OP.STTS || op === DIF_OP.LDTAA || op === DIF_OP.STTAA
              ? DIFV_SCOPE_THREAD
              : DIFV_SCOPE_GLOBAL;
        const user = index >= DIF_VAR_OTHER_UBASE || op === DIF_OP.LDGAA || op === DIF_OP.STGAA || op === DIF_OP.LDTAA || op === DIF_OP.STTAA;
        if (info.format === 'stvar' && index < DIF_VAR_OTHER_UBASE && op === DIF_OP.STGS) err(pc, `cannot write to built-in variable ${index}`);
        if (user && !hasVar(scope, index)) err(pc, `variable ${index} is not in the variable table`);
        break;
      }
      case 'starray': err(pc, 'global arrays are not supported (stga)'); break;
      case 'call':
        reg(rd, 'rd');
        if (index > DIF_SUBR_MAX) err(pc, `invalid subroutine ${index}`);
        if (DESTRUCTIVE_SUBRS.has(index)) destructive = true;
        break;
      case 'pushtr': reg(r2, 'r2'); reg(rd, 'rs'); break;
      case 'pushtv': reg(rd, 'rs'); break;
      case 'xlate':
        reg(rd, 'rd');
        if (index >= difo.xlrefs.length) err(pc, `invalid translator ref ${index}`);
        err(pc, 'translated members must be resolved by the compiler (xlate)');
        break;
      case 'none': break;
    }
    if (info.writesRd && info.format !== 'label' && rd === 0 && info.format !== 'store') err(pc, 'cannot write to %r0');
  }
  if (n > 0 && (text[n - 1]! >>> 24) !== DIF_OP.RET) errors.push(`DIF instruction ${n - 1}: DIF object does not end in ret`);
  return { errors, destructive };
}
