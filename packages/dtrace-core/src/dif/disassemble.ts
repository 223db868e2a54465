// The DIF disassembler: one DIFO to text in the layout of libdtrace's dt_dis()
// — the listing `dtrace -S` prints. Operand formats come from the opcode
// table; comments after "!" name constants, strings, variables and
// subroutines the way dtrace does.

import { DIF_OPCODES } from './opcodes.js';
import { DIF_OP } from './opcodes.js';
import { DIFV_F_MOD, DIFV_F_REF, DIFV_SCOPE_GLOBAL, DIFV_SCOPE_LOCAL, DIFV_SCOPE_THREAD, difSubrName } from './constants.js';
import { type Difo, difoString, difTypeDescription, difvKindName, difvScopeName } from './difo.js';
import {
  difInstrInteger,
  difInstrLabel,
  difInstrOp,
  difInstrR1,
  difInstrR2,
  difInstrRd,
  difInstrString,
  difInstrSubr,
  difInstrType,
  difInstrVar,
  difInstrXlref,
} from './instr.js';

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));

function varName(difo: Difo, id: number, scope: number): string | undefined {
  for (const v of difo.vartab) {
    if (v.id === id && v.scope === scope) return difoString(difo.strtab, v.name);
  }
  return undefined;
}

/** Scope implied by a variable mnemonic's third letter, as dt_dis_scope does: ldgs, ldts, ldls ... */
function scopeOf(name: string): number {
  switch (name[2]) {
    case 'l':
      return DIFV_SCOPE_LOCAL;
    case 't':
      return DIFV_SCOPE_THREAD;
    case 'g':
      return DIFV_SCOPE_GLOBAL;
    default:
      return -1;
  }
}

/** One instruction's text without the offset/opcode columns: "add  %r1, %r2, %r1". */
export function difInstructionText(difo: Difo, instr: number): string {
  const info = DIF_OPCODES[difInstrOp(instr)];
  if (info === undefined) return '(illegal opcode)';
  const n = pad(info.name, 4);
  const r1 = difInstrR1(instr);
  const r2 = difInstrR2(instr);
  const rd = difInstrRd(instr);
  const withVar = (text: string, v: number): string => {
    const name = varName(difo, v, scopeOf(info.name));
    return name === undefined ? text : `${text}\t\t! DT_VAR(${v}) = "${name}"`;
  };
  switch (info.format) {
    case 'none':
      return info.name;
    case 'r1r2rd':
      return `${n} %r${r1}, %r${r2}, %r${rd}`;
    case 'r1rd':
      return `${n} %r${r1}, %r${rd}`;
    case 'r1r2':
      return `${n} %r${r1}, %r${r2}`;
    case 'r1':
      return `${n} %r${r1}`;
    case 'label':
      return `${n} ${difInstrLabel(instr)}`;
    case 'load':
      return `${n} [%r${r1}], %r${rd}`;
    case 'store':
      return `${n} %r${r1}, [%r${rd}]`;
    case 'rd':
      return `${n} %r${rd}`;
    case 'setx': {
      const i = difInstrInteger(instr);
      const text = `${n} DT_INTEGER[${i}], %r${rd}`;
      const v = difo.inttab[i];
      return v === undefined ? text : `${text}\t\t! 0x${BigInt.asUintN(64, v).toString(16)}`;
    }
    case 'sets': {
      const s = difInstrString(instr);
      const text = `${n} DT_STRING[${s}], %r${rd}`;
      const str = difoString(difo.strtab, s);
      return str === undefined ? text : `${text}\t\t! "${str}"`;
    }
    case 'ldarray':
      return withVar(`${n} DT_VAR(${r1}), %r${r2}, %r${rd}`, r1);
    case 'ldvar':
      return withVar(`${n} DT_VAR(${difInstrVar(instr)}), %r${rd}`, difInstrVar(instr));
    case 'stvar':
      return withVar(`${n} %r${rd}, DT_VAR(${difInstrVar(instr)})`, difInstrVar(instr));
    case 'starray':
      return withVar(`${n} DT_VAR(${difInstrVar(instr)}), %r${r2}, %r${rd}`, difInstrVar(instr));
    case 'call': {
      const s = difInstrSubr(instr);
      return `${n} DIF_SUBR(${s}), %r${rd}\t\t! ${difSubrName(s)}`;
    }
    case 'pushtr':
    case 'pushtv': {
      const t = difInstrType(instr);
      const tname = t === 0 ? 'D type' : t === 1 ? 'string' : undefined;
      const text =
        info.opcode === DIF_OP.PUSHTV ? `${n} DT_TYPE(${t}), %r${rd}` : `${n} DT_TYPE(${t}), %r${r2}, %r${rd}`;
      const sep = info.opcode === DIF_OP.PUSHTV ? '\t\t' : '\t';
      return tname === undefined ? text : `${text}${sep}! DT_TYPE(${t}) = ${tname}`;
    }
    case 'xlate': {
      const x = difInstrXlref(instr);
      const text = `${n} DT_XLREF[${x}], %r${rd}`;
      const ref = difo.xlrefs[x];
      return ref === undefined ? text : `${text}\t\t! DT_XLREF[${x}] = ${ref.translator}.${ref.member}`;
    }
  }
}

export interface DifListingOptions {
  /** Text printed after "DIFO " where dtrace prints the object's address (default: a stable 0x-number). */
  address?: string;
}

/**
 * The dt_dis() listing of one DIFO: header with return type, one line per
 * instruction ("OFF OPCODE      INSTRUCTION"), then the variable table and
 * translator references when present. Starts with a newline like dtrace.
 */
export function difListing(difo: Difo, options: DifListingOptions = {}): string {
  const out: string[] = [];
  const address = options.address ?? '0x0';
  out.push('');
  out.push(`DIFO ${address} returns ${difTypeDescription(difo.rtype)}`);
  out.push(`${pad('OFF', 3)} ${pad('OPCODE', 8)}    INSTRUCTION`);
  for (let i = 0; i < difo.buf.length; i++) {
    const instr = difo.buf[i]!;
    const off = String(i).padStart(2, '0');
    out.push(`${off}: ${instr.toString(16).padStart(8, '0')}    ${difInstructionText(difo, instr)}`);
  }
  if (difo.vartab.length !== 0) {
    out.push('');
    out.push(`${pad('NAME', 16)} ${pad('ID', 4)} ${pad('KND', 3)} ${pad('SCP', 3)} ${pad('FLAG', 4)} TYPE`);
  }
  for (const v of difo.vartab) {
    let flags = '';
    if (v.flags & ~(DIFV_F_REF | DIFV_F_MOD)) flags += `/0x${(v.flags & ~(DIFV_F_REF | DIFV_F_MOD)).toString(16)}`;
    if (v.flags & DIFV_F_REF) flags += '/r';
    if (v.flags & DIFV_F_MOD) flags += '/w';
    out.push(
      `${pad(difoString(difo.strtab, v.name) ?? '', 16)} ${pad(v.id.toString(16), 4)} ${pad(difvKindName(v.kind), 3)} ${pad(
        difvScopeName(v.scope),
        3,
      )} ${pad(flags.slice(1), 4)} ${difTypeDescription(v.type)}`,
    );
  }
  if (difo.xlrefs.length !== 0) {
    out.push('');
    out.push(`${pad('XLID', 4)} ${pad('ARG', 3)} ${pad('MEMBER', 12)} TYPE`);
    for (const x of difo.xlrefs) {
      out.push(`${pad(String(x.translator), 4)} ${pad(String(x.argument), 3)} ${pad(x.member, 12)} ${x.typeName}`);
    }
  }
  return out.join('\n') + '\n';
}
