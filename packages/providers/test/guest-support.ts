// D programs on a booted guest for the tests: the probe catalogue the
// compiler sees (optionally with the providers' argument descriptions and the
// guest's kernel types and D library, as the CLI compiles guest programs),
// compilation, and a whole session with its output.
import { compile, formatDiagnostics, type ProbeCatalogue } from '@wdtrace/d-lang';
import { defaultOptions, type CompiledProgram } from '@wdtrace/dtrace-core';
import { dwarfTypeDictionary } from '@wdtrace/kernel';
import { GUEST_D_LIBRARIES, GuestTracer } from '../src/index.js';

type Isa = 'x86_64' | 'arm';

export interface GuestCompileOptions {
  /** Argument descriptions, kernel types, curthread's type and the guest's D library. */
  readonly typed?: boolean;
  readonly zdefs?: boolean;
}

export function guestCatalogue(tracer: GuestTracer, typed = false): ProbeCatalogue {
  return {
    match: (d) =>
      tracer.registry.match(d).map((p) => {
        const probe = { id: p.id, provider: p.provider, module: p.module, function: p.function, name: p.name };
        if (!typed) return probe;
        const ops = tracer.registry.provider(p.provider)!.ops;
        const args = [];
        for (let n = 0; ; n++) {
          const a = ops.getArgDesc?.(p.id, p.providerArg, n);
          if (!a) break;
          args.push(a);
        }
        return { ...probe, args };
      }),
  };
}

/** Compiles `script` for the tracer's guest; throws with dtrace's diagnostics when it does not compile. */
export function compileForGuest(tracer: GuestTracer, isa: Isa, script: string, options: GuestCompileOptions = {}): CompiledProgram {
  const result = compile(script, {
    origin: { kind: 'probe', text: script },
    dataModel: isa === 'arm' ? 'ILP32' : 'LP64',
    probes: guestCatalogue(tracer, options.typed),
    ...(options.zdefs ? { zdefs: true } : {}),
    ...(options.typed ? { types: [dwarfTypeDictionary(tracer.view.dwarf)], threadType: 'struct task_struct *', libraries: GUEST_D_LIBRARIES } : {}),
  });
  if (!result.program) throw new Error(formatDiagnostics(result, {}));
  return result.program;
}

/** Boots a guest running `args`, traces it with `script` until it powers off; the trace output (aggregations last) and the guest's. */
export async function traceGuest(isa: Isa, script: string, args: string[], options: GuestCompileOptions & { quiet?: boolean } = {}) {
  let guestOut = '';
  const decoder = new TextDecoder();
  const tracer = await GuestTracer.create({ isa, args, machine: { cmdline: 'quiet' }, consoleOutput: (b) => (guestOut += decoder.decode(b, { stream: true })) });
  const program = compileForGuest(tracer, isa, script, options);
  let out = '';
  const run = await tracer.session(program, { out: (s) => (out += s), err: (s) => (out += s) }, options.quiet ? { options: { ...defaultOptions(), quiet: true } } : {});
  out += run.consumer.printAggregations();
  return { out, guestOut, run, tracer };
}
