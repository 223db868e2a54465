// The USDT probes a program carries, as the usdt provider finds them at
// exec: the description section the `-G` link step put into the executable
// (providers, probes with their argument types, and each site as function +
// offset), each site resolved to its address through the executable's
// symbol table — a static function by the STT_FILE symbol that precedes the
// locals of its object, as the link step recorded it.
import { STB_LOCAL, STT_FILE, STT_FUNC, readUsdtDescriptions, type ElfFile, type UsdtDescription, type UsdtProviderDefinition, type UsdtSite } from '@wdtrace/kernel';

/** A site with its address in the program. */
export interface ResolvedUsdtSite extends UsdtSite {
  readonly address: bigint;
  /** Address of the function the site is in. */
  readonly functionAddress: bigint;
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

/** The program's USDT probes, undefined when it has no description (or an unreadable one). */
export function programUsdt(elf: ElfFile): ProgramUsdt | undefined {
  let descriptions: UsdtDescription[] | undefined;
  try {
    descriptions = readUsdtDescriptions(elf);
  } catch {
    return undefined;
  }
  if (!descriptions || descriptions.length === 0) return undefined;
  const symbols = elf.symbolTables().length > 0 ? elf.symbols() : [];
  // Functions by name: globals, and locals under the FILE symbol that precedes them.
  const globals = new Map<string, bigint>();
  const locals = new Map<string, bigint | null>(); // file\0name -> address (null: ambiguous)
  let file = '';
  for (const s of symbols) {
    if (s.type === STT_FILE) file = s.name;
    if (s.type !== STT_FUNC) continue;
    if (s.bind === STB_LOCAL) {
      const key = `${file}\0${s.name}`;
      locals.set(key, locals.has(key) ? null : s.value);
    } else {
      globals.set(s.name, s.value);
    }
  }
  const sites: ResolvedUsdtSite[] = [];
  let unresolved = 0;
  for (const d of descriptions) {
    for (const site of d.sites) {
      const value = site.local ? locals.get(`${site.file}\0${site.function}`) : globals.get(site.function);
      if (value === undefined || value === null) {
        unresolved++;
        continue;
      }
      const functionAddress = value & ~1n;
      sites.push({ ...site, functionAddress, address: functionAddress + BigInt(site.offset) });
    }
  }
  return { providers: descriptions.flatMap((d) => d.providers), sites, sources: descriptions.map((d) => d.source), unresolved };
}
