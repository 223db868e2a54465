// A structural check of generated DIF, the rules the framework's verifier
// enforces (after dtrace_difo_validate): known opcodes, registers in range,
// no writes to %r0, forward branches inside the buffer, table indexes in
// range, a variable-table entry for every variable referenced, ret last.
import {
  DIF_DIR_NREGS,
  DIF_OPCODES,
  type Difo,
  difInstrInteger,
  difInstrLabel,
  difInstrOp,
  difInstrR1,
  difInstrR2,
  difInstrRd,
  difInstrString,
  difInstrVar,
  DIF_OP,
} from '@wdtrace/dtrace-core/dif';
import type { CompiledProgram } from '@wdtrace/dtrace-core/program';

export function checkDifo(d: Difo): string[] {
  const problems: string[] = [];
  const n = d.buf.length;
  if (n === 0) return ['empty DIFO'];
  for (let pc = 0; pc < n; pc++) {
    const i = d.buf[pc]!;
    const info = DIF_OPCODES[difInstrOp(i)];
    if (info === undefined) {
      problems.push(`${pc}: illegal opcode ${difInstrOp(i)}`);
      continue;
    }
    const r1 = difInstrR1(i);
    const r2 = difInstrR2(i);
    const rd = difInstrRd(i);
    const regCheck = (r: number, what: string): void => {
      if (r >= DIF_DIR_NREGS) problems.push(`${pc}: ${what} %r${r} out of range`);
    };
    switch (info.format) {
      case 'r1r2rd':
        regCheck(r1, 'r1');
        regCheck(r2, 'r2');
        regCheck(rd, 'rd');
        break;
      case 'r1rd':
      case 'load':
        regCheck(r1, 'r1');
        regCheck(rd, 'rd');
        break;
      case 'r1r2':
        regCheck(r1, 'r1');
        regCheck(r2, 'r2');
        break;
      case 'store':
        regCheck(r1, 'r1');
        regCheck(rd, 'rd');
        break;
      case 'label': {
        const l = difInstrLabel(i);
        if (l <= pc || l >= n) problems.push(`${pc}: branch to ${l} is not forward inside the buffer`);
        break;
      }
      case 'setx':
        if (difInstrInteger(i) >= d.inttab.length) problems.push(`${pc}: integer index out of range`);
        regCheck(rd, 'rd');
        break;
      case 'sets':
        if (difInstrString(i) >= d.strtab.length) problems.push(`${pc}: string offset out of range`);
        regCheck(rd, 'rd');
        break;
      case 'ldvar':
      case 'stvar': {
        const v = difInstrVar(i);
        if (!d.vartab.some((x) => x.id === v)) problems.push(`${pc}: variable ${v} not in the variable table`);
        regCheck(rd, 'rd');
        break;
      }
      case 'ldarray':
        regCheck(r2, 'ri');
        regCheck(rd, 'rd');
        break;
      default:
        break;
    }
    if (info.writesRd && rd === 0 && info.format !== 'label') problems.push(`${pc}: writes %r0`);
  }
  if (difInstrOp(d.buf[n - 1]!) !== DIF_OP.RET) problems.push('last instruction is not ret');
  return problems;
}

export function checkProgram(p: CompiledProgram): string[] {
  const out: string[] = [];
  for (const e of p.ecbs) {
    if (e.predicate !== undefined) out.push(...checkDifo(e.predicate).map((s) => `clause ${e.clause} predicate: ${s}`));
    e.actions.forEach((a, i) => {
      if (a.difo !== undefined) out.push(...checkDifo(a.difo).map((s) => `clause ${e.clause} action ${i}: ${s}`));
      if (a.record !== undefined) {
        if (a.record.offset % a.record.alignment !== 0) out.push(`clause ${e.clause} action ${i}: misaligned record`);
        if (a.record.offset + a.record.size > e.size) out.push(`clause ${e.clause} action ${i}: record beyond ECB size`);
      }
    });
  }
  return out;
}
