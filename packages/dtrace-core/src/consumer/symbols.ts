// Address-to-name lookups and the text libdtrace makes of them: the
// machine answers dtrace_lookup_by_addr (kernel) and Plookup_by_addr +
// Pobjname (a process) through `ConsumerSymbols` (framework/machine.ts);
// these functions turn the answers into dtrace_addr2str / dtrace_uaddr2str strings (%a, %A), stack
// frames (dt_print_stack, dt_print_ustack) and the sym()/mod()/usym()/
// umod()/uaddr() forms (dt_print_sym, dt_print_mod, dt_print_usym,
// dt_print_umod).

import type { ConsumerSymbols, SymbolMatch } from '../framework/machine.js';

const hex = (a: bigint): string => `0x${BigInt.asUintN(64, a).toString(16)}`;

/** "module`symbol+0xoff" (or without the offset at the symbol's start), as every printer spells a symbol. */
function symbolText(m: SymbolMatch & { symbol: NonNullable<SymbolMatch['symbol']> }, addr: bigint): string {
  const a = BigInt.asUintN(64, addr);
  return a > m.symbol.value ? `${m.module}\`${m.symbol.name}+0x${(a - m.symbol.value).toString(16)}` : `${m.module}\`${m.symbol.name}`;
}

/** dtrace_addr2str (%a): the symbol with its offset, else plain hexadecimal. */
export function addrToString(symbols: ConsumerSymbols, addr: bigint): string {
  const m = symbols.lookup(addr);
  return m?.symbol ? symbolText({ ...m, symbol: m.symbol }, addr) : hex(addr);
}

/** A stack() frame (dt_print_stack): the symbol with its offset, else "module`0xaddr", else hexadecimal. */
export function stackFrameString(symbols: ConsumerSymbols, pc: bigint): string {
  const m = symbols.lookup(pc);
  if (m?.symbol) return symbolText({ ...m, symbol: m.symbol }, pc);
  return m ? `${m.module}\`${hex(pc)}` : hex(pc);
}

/** sym() and func() (dt_print_sym): "module`symbol" without offset, else "module`0xaddr", else hexadecimal. */
export function symString(symbols: ConsumerSymbols, pc: bigint): string {
  const m = symbols.lookup(pc);
  if (m?.symbol) return `${m.module}\`${m.symbol.name}`;
  return m ? `${m.module}\`${hex(pc)}` : hex(pc);
}

/** mod() (dt_print_mod): the module name, else hexadecimal. */
export function modString(symbols: ConsumerSymbols, pc: bigint): string {
  return symbols.lookup(pc)?.module ?? hex(pc);
}

/** dtrace_uaddr2str (%A, uaddr(), ustack() frames): as a stack frame, in process `pid` (hexadecimal without one). */
export function uaddrToString(symbols: ConsumerSymbols, pid: bigint, addr: bigint): string {
  const m = pid !== 0n ? symbols.lookupUser?.(pid, addr) : undefined;
  if (m?.symbol) return symbolText({ ...m, symbol: m.symbol }, addr);
  return m ? `${m.module}\`${hex(addr)}` : hex(addr);
}

/** usym() and ufunc() (dt_print_usym): the address moved to its symbol's start, then dtrace_uaddr2str. */
export function usymString(symbols: ConsumerSymbols, pid: bigint, pc: bigint): string {
  const m = pid !== 0n ? symbols.lookupUser?.(pid, pc) : undefined;
  return uaddrToString(symbols, pid, m?.symbol ? m.symbol.value : pc);
}

/** umod() (dt_print_umod): the object's basename, else hexadecimal. */
export function umodString(symbols: ConsumerSymbols, pid: bigint, pc: bigint): string {
  const m = pid !== 0n ? symbols.lookupUser?.(pid, pc) : undefined;
  return m?.module ?? hex(pc);
}
