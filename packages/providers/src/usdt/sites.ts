// The USDT probes a program carries, as the usdt provider finds them at
// exec: the description section the `-G` link step put into the executable
// (providers, probes with their argument types, and each site as function +
// offset), each site resolved to its address through the executable's
// symbol table — a static function by the STT_FILE symbol that precedes the
// locals of its object, as the link step recorded it.
import { STB_LOCAL, STT_FILE, STT_FUNC, isaOfElfMachine, readUsdtDescriptions, type ElfFile, type UsdtDescription, type UsdtProviderDefinition, type UsdtSite } from '@wdtrace/kernel';
import { readStapProbes, stapArgumentType, type StapArgument } from './stapsdt.js';

/** A site with its address in the program. */
export interface ResolvedUsdtSite extends UsdtSite {
  readonly address: bigint;
  /** Address of the function the site is in. */
  readonly functionAddress: bigint;
  /** A `.note.stapsdt` site: where its arguments are (else they are the call's). */
  readonly stapArgs?: readonly StapArgument[];
  /** A `.note.stapsdt` site's semaphore (its is-enabled counter), when it has one. */
  readonly semaphore?: bigint;
}

/** A program's USDT providers and their resolved sites. */
export interface ProgramUsdt {
  readonly providers: readonly UsdtProviderDefinition[];
  readonly sites: readonly ResolvedUsdtSite[];
  /** The D source of each description (types and translators for args[]). */
  readonly sources: readonly string[];
  /** Sites whose function the symbol table does not name (stripped or ambiguous). */
  readonly unresolved: number;
}

/** The program's USDT probes (its -G descriptions and its SDT notes), undefined when it has none. */
export function programUsdt(elf: ElfFile): ProgramUsdt | undefined {
  let descriptions: UsdtDescription[] | undefined;
  try {
    descriptions = readUsdtDescriptions(elf) ?? [];
  } catch {
    descriptions = [];
  }
  const stap = stapUsdt(elf);
  if (descriptions.length === 0) return stap;
  const symbols = elf.symbolTables().length > 0 ? elf.symbols() : [];
  // Functions by name: globals, and locals under the FILE symbol that precedes them.
  const globals = new Map<string, bigint>();
  const locals = new Map<string, bigint | null>(); // file\0name -> address (null: ambiguous)
  // A program stripped of its FILE symbols (llvm-strip --strip-debug drops them): locals by name alone.
  const localsByName = new Map<string, bigint | null>();
  const files = new Set<string>();
  let file = '';
  for (const s of symbols) {
    if (s.type === STT_FILE) files.add((file = s.name));
    if (s.type !== STT_FUNC) continue;
    if (s.bind === STB_LOCAL) {
      const key = `${file}\0${s.name}`;
      locals.set(key, locals.has(key) ? null : s.value);
      localsByName.set(s.name, localsByName.has(s.name) ? null : s.value);
    } else {
      globals.set(s.name, s.value);
    }
  }
  const sites: ResolvedUsdtSite[] = [];
  let unresolved = 0;
  for (const d of descriptions) {
    for (const site of d.sites) {
      const value = !site.local ? globals.get(site.function) : files.has(site.file) ? locals.get(`${site.file}\0${site.function}`) : localsByName.get(site.function);
      if (value === undefined || value === null) {
        unresolved++;
        continue;
      }
      const functionAddress = value & ~1n;
      sites.push({ ...site, functionAddress, address: functionAddress + BigInt(site.offset) });
    }
  }
  const own = { providers: descriptions.flatMap((d) => d.providers), sites, sources: descriptions.map((d) => d.source), unresolved };
  return stap ? { ...own, providers: [...own.providers, ...stap.providers], sites: [...own.sites, ...stap.sites] } : own;
}

/**
 * The probes of the program's `.note.stapsdt` notes as usdt sites: the
 * function is the symbol covering the note's pc; a probe's argument types
 * are its first site's argument widths.
 */
function stapUsdt(elf: ElfFile): ProgramUsdt | undefined {
  const isa = isaOfElfMachine(elf.machine);
  if (!isa) return undefined;
  let probes;
  try {
    probes = readStapProbes(elf, isa).probes;
  } catch {
    return undefined;
  }
  if (probes.length === 0) return undefined;
  const functions = (elf.symbolTables().length > 0 ? elf.symbols() : []).filter((s) => s.type === STT_FUNC && s.size > 0);
  const providers = new Map<string, { name: string; probes: { name: string; native: string[] }[] }>();
  const sites: ResolvedUsdtSite[] = [];
  let unresolved = 0;
  for (const p of probes) {
    const fn = functions.find((f) => p.pc >= (f.value & ~1n) && p.pc < (f.value & ~1n) + BigInt(f.size));
    if (!fn) {
      unresolved++;
      continue;
    }
    let prov = providers.get(p.provider);
    if (!prov) providers.set(p.provider, (prov = { name: p.provider, probes: [] }));
    if (!prov.probes.some((q) => q.name === p.name)) prov.probes.push({ name: p.name, native: p.args.map(stapArgumentType) });
    const functionAddress = fn.value & ~1n;
    sites.push({
      provider: p.provider,
      probe: p.name,
      file: '',
      function: fn.name,
      local: fn.bind === STB_LOCAL,
      offset: Number(p.pc - functionAddress),
      isEnabled: false,
      tail: false,
      thumb: (fn.value & 1n) === 1n,
      address: p.pc,
      functionAddress,
      stapArgs: p.args,
      ...(p.semaphore !== 0n ? { semaphore: p.semaphore } : {}),
    });
  }
  return { providers: [...providers.values()], sites, sources: [], unresolved };
}
