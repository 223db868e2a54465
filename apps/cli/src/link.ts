// dtrace -h and dtrace -G: the provider definitions of the -s scripts (read
// by the real D compiler) become a C header (-h, dtrace_program_header), or
// the probe sites of relocatable objects become no-ops and a description
// object is written to link into the program (-G, dtrace_program_link).
// Nothing is written unless everything succeeded: the header and the
// description object go to a temporary file renamed into place, and the
// objects are rewritten only after all of them were processed.
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { compile, formatDiagnostics, programHeader, type CompileOptions, type ProviderDefinition } from '@wdtrace/d-lang';
import { typeName } from '@wdtrace/dtrace-core/types';
import { ElfError, UsdtLinkError, linkUsdt, parseElf, EM_ARM, type UsdtProviderDefinition } from '@wdtrace/kernel';
import { UsageError, type ProbeSpec } from './command.js';
import { baseOptions, readBytesText, type CompileFlags } from './compile-specs.js';
import { fsPath, strerror, type CliIo } from './output.js';

/** Writes `bytes` to `path` through a temporary file, so a failure leaves no half-written file. */
function writeWhole(path: string, bytes: Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(fsPath(tmp), bytes);
    renameSync(fsPath(tmp), fsPath(path));
  } catch (e) {
    try {
      unlinkSync(fsPath(tmp));
    } catch {
      // nothing was created
    }
    throw e;
  }
}

/** A specification's D text and where it came from, as the compiler is told. */
interface SpecSource {
  readonly spec: ProbeSpec;
  readonly source: string;
  readonly origin: NonNullable<CompileOptions['origin']>;
}

/**
 * The D text of every specification that can define providers (-s scripts
 * and -n descriptions), read before anything else is opened, as dtrace(1)
 * compiles its scripts before it links (compile_file's fatal error); an
 * exit status when a script cannot be read.
 */
function specSources(specs: readonly ProbeSpec[], io: CliIo): SpecSource[] | number {
  const out: SpecSource[] = [];
  for (const spec of specs) {
    if (spec.flag === 's') {
      let source: string;
      try {
        source = readBytesText(spec.text);
      } catch (e) {
        io.err(`dtrace: failed to open ${spec.text}: ${strerror(e)}\n`);
        return 1;
      }
      if (source.startsWith('#!')) source = source.slice(source.indexOf('\n') >= 0 ? source.indexOf('\n') : source.length);
      out.push({ spec, source, origin: { kind: 'script', name: spec.text } });
    } else if (spec.flag === 'n') {
      out.push({ spec, source: spec.text, origin: { kind: 'probe', text: spec.text } });
    }
  }
  return out;
}

/** The compiled provider definitions of the specifications' texts (only -s scripts define providers); an exit status on a compile error. */
function providerDefinitions(sources: readonly SpecSource[], f: CompileFlags, dataModel: 'LP64' | 'ILP32', io: CliIo): { providers: ProviderDefinition[]; source: string } | number {
  const providers: ProviderDefinition[] = [];
  const scripts: string[] = [];
  for (const { spec, source, origin } of sources) {
    const opts: CompileOptions = { ...baseOptions(f), zdefs: true, dataModel, origin };
    const result = compile(source, opts);
    if (!result.program) {
      io.err(formatDiagnostics({ diagnostics: result.diagnostics.filter((d) => d.severity === 'error') }, opts) + '\n');
      return 1;
    }
    providers.push(...result.context.providers);
    if (spec.flag === 's') scripts.push(source);
  }
  return { providers, source: scripts.join('\n') };
}

/** dtrace -h: the header for the scripts' providers, into -o's file or `<script>.h`. */
export function runHeader(specs: readonly ProbeSpec[], f: CompileFlags, outFile: string | undefined, io: CliIo): number {
  if (specs.length === 0) throw new UsageError('-h requires one or more scripts or enabling options');
  let file = outFile;
  if (file === undefined) {
    if (specs.length > 1) throw new UsageError('-h requires an output file if multiple scripts are specified');
    const first = specs[0]!;
    if (first.flag !== 's' || !first.text.endsWith('.d')) throw new UsageError('-h requires an output file if no scripts are specified');
    file = `${basename(first.text.slice(0, -2))}.h`;
  }
  const sources = specSources(specs, io);
  if (typeof sources === 'number') return sources;
  const defs = providerDefinitions(sources, f, 'LP64', io);
  if (typeof defs === 'number') return defs;
  const text = programHeader(defs.providers, file);
  try {
    writeWhole(file, Buffer.from(text, 'latin1'));
  } catch (e) {
    io.err(`dtrace: failed to open header file '${file}': ${strerror(e)}\n`);
    return 1;
  }
  return 0;
}

/** The link's name for a provider definition: C type names of each argument. */
function linkDefinition(p: ProviderDefinition): UsdtProviderDefinition {
  return {
    name: p.name,
    probes: p.probes.map((q) => ({ name: q.name, native: q.native.map((t) => typeName(t)), ...(q.translated !== undefined ? { translated: q.translated.map((t) => typeName(t)) } : {}) })),
  };
}

/** dtrace -G: the objects' probe sites made no-ops (in place), and the description object written. */
export function runLink(specs: readonly ProbeSpec[], f: CompileFlags, outFile: string | undefined, objectPaths: readonly string[], io: CliIo): number {
  if (specs.length === 0) throw new UsageError('-G requires one or more scripts or enabling options');
  const scripts = specs.filter((s) => s.flag === 's');
  const first = scripts[0];
  const desc = first ? `script ${first.text}` : `description ${specs[0]!.text}`;
  // dtrace's link_prog: -o names the object for one script; else <script>.o, or d.out.
  const file = outFile !== undefined && specs.length === 1 ? outFile : first && first.text.endsWith('.d') ? `${basename(first.text.slice(0, -2))}.o` : (outFile ?? 'd.out');
  // The scripts are read first: a missing script is reported before any object is opened.
  const sources = specSources(specs, io);
  if (typeof sources === 'number') return sources;
  const objects: { name: string; bytes: Uint8Array }[] = [];
  for (const path of objectPaths) {
    try {
      objects.push({ name: path, bytes: new Uint8Array(readFileSync(fsPath(path))) });
    } catch (e) {
      io.err(`dtrace: failed to link ${desc}: failed to open ${path}: ${strerror(e)}\n`);
      return 1;
    }
  }
  // The objects' machine sets the data model the definitions are compiled for.
  let dataModel: 'LP64' | 'ILP32' = 'LP64';
  if (objects.length > 0) {
    try {
      if (parseElf(objects[0]!.bytes).machine === EM_ARM) dataModel = 'ILP32';
    } catch (e) {
      if (!(e instanceof ElfError)) throw e;
      io.err(`dtrace: failed to link ${desc}: failed to process ${objects[0]!.name}: ${e.message}\n`);
      return 1;
    }
  }
  const defs = providerDefinitions(sources, f, dataModel, io);
  if (typeof defs === 'number') return defs;
  let result;
  try {
    result = linkUsdt(defs.providers.map(linkDefinition), objects, defs.source, dataModel === 'ILP32' ? 'arm' : undefined);
  } catch (e) {
    if (!(e instanceof UsdtLinkError)) throw e;
    io.err(`dtrace: failed to link ${desc}: ${e.message}\n`);
    return 1;
  }
  try {
    for (const o of result.objects) if (o.modified) writeWhole(o.name, o.bytes);
    writeWhole(file, result.descriptionObject);
  } catch (e) {
    io.err(`dtrace: failed to link ${desc}: failed to write ${file}: ${strerror(e)}\n`);
    return 1;
  }
  return 0;
}

