// SystemTap SDT notes (`.note.stapsdt`), the USDT probes Linux programs
// built with <sys/sdt.h> carry: each note (owner "stapsdt", type 3) holds
// the probe's pc (a `nop` in place), the link-time address of the
// `.stapsdt.base` section (the program's own address of that section minus
// it is the load bias), the address of the probe's semaphore (a 16-bit
// counter the program tests as its is-enabled check; 0 for none), then the
// provider, the probe name and the argument string: one `[-]SIZE@OPERAND`
// per argument, an operand in the assembler's syntax of the ISA:
//
//   x86-64  %rdi  %eax  $42  -16(%rbp)  8(%rax,%rbx,4)  sym(%rip)  sym+8(%rip)
//   ARM     r0  sp  #42  [r3]  [sp, #8]  [fp, #-12]
//
// An argument is fetched at the probe's trap from the registers and the
// process's memory; SIZE bytes of it, sign-extended when negative.
import type { ProbeArgumentSource } from '@wdtrace/dtrace-core';
import { STT_FUNC, STT_OBJECT, type ElfFile, type Isa, type RegisterFile, type SafeRead } from '@wdtrace/kernel';

/** Where one argument is, and how wide. */
export type StapOperand =
  | { readonly kind: 'register'; readonly register: number; readonly shift: number }
  | { readonly kind: 'immediate'; readonly value: bigint }
  | { readonly kind: 'memory'; readonly base?: number; readonly index?: number; readonly scale: number; readonly displacement: bigint; readonly pcRelative: boolean };

export interface StapArgument {
  readonly size: number;
  readonly signed: boolean;
  readonly operand: StapOperand;
  /** The argument as written in the note. */
  readonly text: string;
}

export interface StapProbe {
  readonly provider: string;
  readonly name: string;
  readonly pc: bigint;
  /** The semaphore's address (0n: none). */
  readonly semaphore: bigint;
  readonly args: readonly StapArgument[];
}

const NT_STAPSDT = 3;

/** x86-64 register names: number (RegisterFile.get) and the bit offset of a high-byte register. */
const X86_REGISTERS: ReadonlyMap<string, { n: number; shift: number }> = (() => {
  const m = new Map<string, { n: number; shift: number }>();
  const legacy = ['ax', 'cx', 'dx', 'bx', 'sp', 'bp', 'si', 'di'];
  legacy.forEach((r, n) => {
    m.set(`r${r}`, { n, shift: 0 });
    m.set(`e${r}`, { n, shift: 0 });
    m.set(r, { n, shift: 0 });
  });
  ['al', 'cl', 'dl', 'bl', 'spl', 'bpl', 'sil', 'dil'].forEach((r, n) => m.set(r, { n, shift: 0 }));
  ['ah', 'ch', 'dh', 'bh'].forEach((r, n) => m.set(r, { n, shift: 8 }));
  for (let n = 8; n < 16; n++) for (const s of ['', 'd', 'w', 'b']) m.set(`r${n}${s}`, { n, shift: 0 });
  m.set('rip', { n: -1, shift: 0 });
  return m;
})();

/** ARM register names. */
const ARM_REGISTERS: ReadonlyMap<string, number> = new Map([
  ...Array.from({ length: 16 }, (_, n) => [`r${n}`, n] as [string, number]),
  ['sb', 9],
  ['sl', 10],
  ['fp', 11],
  ['ip', 12],
  ['sp', 13],
  ['lr', 14],
  ['pc', 15],
]);

/** Thrown for an argument string this reader does not understand. */
export class StapArgumentError extends Error {}

function parseNumber(text: string): bigint {
  const t = text.trim();
  if (!/^[-+]?(0x[0-9a-f]+|\d+)$/i.test(t)) throw new StapArgumentError(`"${text}" is not a number`);
  const neg = t.startsWith('-');
  const v = BigInt(t.replace(/^[-+]/, ''));
  return neg ? -v : v;
}

/** One x86-64 operand; `symbol` resolves a name to its address. */
function parseX86Operand(text: string, symbol: (name: string) => bigint | undefined): StapOperand {
  const reg = (name: string): number => {
    const r = X86_REGISTERS.get(name.replace(/^%/, ''));
    if (r === undefined) throw new StapArgumentError(`unknown register ${name}`);
    return r.n;
  };
  if (text.startsWith('%')) {
    const r = X86_REGISTERS.get(text.slice(1));
    if (r === undefined || r.n < 0) throw new StapArgumentError(`unknown register ${text}`);
    return { kind: 'register', register: r.n, shift: r.shift };
  }
  if (text.startsWith('$')) return { kind: 'immediate', value: parseNumber(text.slice(1)) };
  const m = /^([^(]*)\(([^)]*)\)$/.exec(text);
  if (!m) throw new StapArgumentError(`cannot read operand ${text}`);
  const [base, index, scale] = m[2]!.split(',').map((s) => s.trim());
  let displacement = 0n;
  const disp = m[1]!.trim();
  if (disp !== '') {
    const sym = /^([A-Za-z_.$][\w.$]*)([-+]\s*(?:0x[0-9a-f]+|\d+))?$/i.exec(disp);
    if (sym) {
      const addr = symbol(sym[1]!);
      if (addr === undefined) throw new StapArgumentError(`unknown symbol ${sym[1]}`);
      displacement = addr + (sym[2] ? parseNumber(sym[2].replace(/\s/g, '')) : 0n);
    } else {
      displacement = parseNumber(disp);
    }
  }
  // A rip-relative operand with a symbol names the symbol's address; with a number, an offset from the next instruction.
  const symbolic = /^[A-Za-z_.$]/.test(disp);
  const rip = base === '%rip';
  return {
    kind: 'memory',
    ...(base && !rip ? { base: reg(base) } : {}),
    ...(index ? { index: reg(index) } : {}),
    scale: scale ? Number(scale) : 1,
    displacement,
    pcRelative: rip && !symbolic,
  };
}

/** One ARM operand. */
function parseArmOperand(text: string): StapOperand {
  const reg = (name: string): number => {
    const r = ARM_REGISTERS.get(name.trim().toLowerCase());
    if (r === undefined) throw new StapArgumentError(`unknown register ${name}`);
    return r;
  };
  if (text.startsWith('#')) return { kind: 'immediate', value: parseNumber(text.slice(1)) };
  if (text.startsWith('[')) {
    const m = /^\[\s*([a-z0-9]+)\s*(?:,\s*#?\s*([-+]?(?:0x[0-9a-f]+|\d+)))?\s*\]$/i.exec(text);
    if (!m) throw new StapArgumentError(`cannot read operand ${text}`);
    return { kind: 'memory', base: reg(m[1]!), scale: 1, displacement: m[2] ? parseNumber(m[2]) : 0n, pcRelative: false };
  }
  return { kind: 'register', register: reg(text), shift: 0 };
}

/** The arguments of one note's argument string. */
export function parseStapArguments(isa: Isa, text: string, symbol: (name: string) => bigint | undefined = () => undefined): StapArgument[] {
  const words = text.trim() === '' ? [] : isa === 'arm' ? splitArm(text.trim()) : text.trim().split(/\s+/);
  return words.map((w) => {
    const m = /^(-?)(1|2|4|8)@(.+)$/.exec(w);
    if (!m) throw new StapArgumentError(`cannot read argument ${w}`);
    const operand = isa === 'x86_64' ? parseX86Operand(m[3]!, symbol) : parseArmOperand(m[3]!);
    return { signed: m[1] === '-', size: Number(m[2]), operand, text: w };
  });
}

/** ARM arguments are separated by spaces, but `[sp, #8]` holds one. */
function splitArm(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '[') depth++;
    if (c === ']') depth--;
    if (/\s/.test(c) && depth === 0) {
      if (cur !== '') out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur !== '') out.push(cur);
  return out;
}

/** The program's SDT notes; probes whose arguments cannot be read keep the ones before the bad one out (none). */
export function readStapProbes(elf: ElfFile, isa: Isa): { probes: StapProbe[]; problems: string[] } {
  const probes: StapProbe[] = [];
  const problems: string[] = [];
  const section = elf.sectionByName('.note.stapsdt');
  if (!section) return { probes, problems };
  const baseSection = elf.sectionByName('.stapsdt.base');
  const wide = elf.is64;
  const word = wide ? 8 : 4;
  const symbols = elf.symbolTables().length > 0 ? elf.symbols() : [];
  const symbol = (name: string): bigint | undefined => symbols.find((s) => s.name === name && (s.type === STT_OBJECT || s.type === STT_FUNC || s.type === 0))?.value;
  for (const note of elf.notes(section)) {
    if (note.name !== 'stapsdt' || note.type !== NT_STAPSDT || note.desc.length < 3 * word) continue;
    const dv = new DataView(note.desc.buffer, note.desc.byteOffset, note.desc.byteLength);
    const at = (i: number): bigint => (wide ? dv.getBigUint64(i * word, true) : BigInt(dv.getUint32(i * word, true)));
    const [pc, base, semaphore] = [at(0), at(1), at(2)];
    const strings = new TextDecoder().decode(note.desc.subarray(3 * word)).split('\0');
    const [provider = '', name = '', args = ''] = strings;
    const bias = baseSection ? baseSection.addr - base : 0n;
    try {
      probes.push({ provider, name, pc: pc + bias, semaphore: semaphore === 0n ? 0n : semaphore + bias, args: parseStapArguments(isa, args, symbol) });
    } catch (e) {
      if (!(e instanceof StapArgumentError)) throw e;
      problems.push(`${provider}:${name}: ${e.message}`);
    }
  }
  return { probes, problems };
}

/** The C type an argument is typed as in args[]: its width and signedness. */
export function stapArgumentType(a: StapArgument): string {
  return `${a.signed ? '' : 'u'}int${a.size * 8}_t`;
}

/** One argument's value at a probe: registers of the trapping CPU and the process's memory. */
export function stapArgumentValue(a: StapArgument, regs: RegisterFile, pc: bigint, nextPc: bigint, read: (va: bigint, length: number) => SafeRead): bigint {
  const bits = BigInt(a.size * 8);
  let raw: bigint;
  const op = a.operand;
  if (op.kind === 'immediate') raw = op.value;
  else if (op.kind === 'register') raw = regs.get(op.register) >> BigInt(op.shift);
  else {
    let addr = op.displacement;
    if (op.pcRelative) addr += nextPc;
    if (op.base !== undefined) addr += op.base === 15 ? pc + 8n : regs.get(op.base);
    if (op.index !== undefined) addr += regs.get(op.index) * BigInt(op.scale);
    const r = read(BigInt.asUintN(64, addr), a.size);
    if ('fault' in r) return 0n;
    raw = 0n;
    for (let i = a.size - 1; i >= 0; i--) raw = (raw << 8n) | BigInt(r.bytes[i]!);
  }
  return a.signed ? BigInt.asUintN(64, BigInt.asIntN(Number(bits), raw)) : BigInt.asUintN(Number(bits), raw);
}

/**
 * The arguments of a firing at an SDT-note site, each fetched when a clause
 * reads it: one per CPU, pointed at the firing's site by `at`.
 */
export class StapArguments implements ProbeArgumentSource {
  private args: readonly StapArgument[] = [];
  private pc = 0n;
  private nextPc = 0n;

  constructor(
    private readonly regs: RegisterFile,
    private readonly read: (va: bigint, length: number) => SafeRead,
  ) {}

  /** A firing at the site whose instruction spans [pc, nextPc) with these arguments. */
  at(args: readonly StapArgument[], pc: bigint, nextPc: bigint): this {
    this.args = args;
    this.pc = pc;
    this.nextPc = nextPc;
    return this;
  }

  arg(index: number): bigint {
    const a = this.args[index];
    return a === undefined ? 0n : stapArgumentValue(a, this.regs, this.pc, this.nextPc, this.read);
  }
}
