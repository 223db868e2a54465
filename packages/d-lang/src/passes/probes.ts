// Pass: probe-description resolution. Each description of each clause is
// split into provider:module:function:name (shorter forms fill from the
// right: `name`, `function:name`, `module:function:name`), checked, and —
// when the framework supplied a probe catalogue — matched: a description
// matching nothing is an error unless -Z (zdefs) is set.
import type { ProbeDescription } from '@wdtrace/dtrace-core/program';
import { DIAGNOSTICS } from '../diagnostics-table.js';
import { fail, type DiagnosticTag, type Loc } from '../diagnostics.js';
import { ProbeMatchError, type ProbeCatalogue, type ProbeInfo } from '../context.js';
import type { ClauseItem } from '../ast.js';
import type { Pass } from './pass.js';

const DTRACE_PROVNAMELEN = 64;
const DTRACE_MODNAMELEN = 64;
const DTRACE_FUNCNAMELEN = 192;
const DTRACE_NAMELEN = 64;

/** Split a probe description string into its four fields, dtrace-style. Returns an error text when invalid. */
export function splitProbeDescription(text: string): ProbeDescription | string {
  // Fields fill from the right: name, function:name, module:function:name, provider:module:function:name.
  const fields = ['', '', '', ''];
  let end = text.length;
  let n = 3;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text.charCodeAt(i) !== 58) continue; // ':'
    if (n === 0) return 'Overspecified probe description';
    fields[n--] = text.slice(i + 1, end);
    end = i;
  }
  fields[n] = text.slice(0, end);
  const [provider, module, func, name] = fields as [string, string, string, string];
  if (provider.length >= DTRACE_PROVNAMELEN || module.length >= DTRACE_MODNAMELEN || func.length >= DTRACE_FUNCNAMELEN || name.length >= DTRACE_NAMELEN) {
    return 'Name too long';
  }
  if (text.includes('[') || text.includes(']')) {
    for (const f of fields) {
      let depth = 0;
      for (const ch of f) {
        if (ch === '[') depth++;
        else if (ch === ']') depth--;
      }
      if (depth !== 0) return 'Invalid probe description glob';
    }
  }
  return { provider, module, function: func, name, id: 0 };
}

const NO_PROBES: ProbeInfo[] = [];

export const probesPass: Pass = {
  name: 'probes',
  reads: 'ast clauses, probe catalogue, zdefs',
  writes: 'clauses (resolved probe descriptions and matched probes)',
  run(ctx) {
    const zdefs = ctx.options.zdefs === true || (ctx.option('zdefs') !== undefined && ctx.option('zdefs') !== '0');
    // The clauses the sugar pass split from one clause share its description list: resolve it once.
    const resolved = new Map<ClauseItem['probes'], { probes: ProbeDescription[]; matched: ProbeInfo[] }>();
    const items = ctx.ast!.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.k !== 'clause') continue;
      const known = resolved.get(item.probes);
      if (known !== undefined) {
        ctx.clauses.push({ item, probes: known.probes, matched: known.matched });
        continue;
      }
      const probes: ProbeDescription[] = [];
      const matched: ProbeInfo[] = [];
      for (const p of item.probes) {
        const d = splitProbeDescription(p.text);
        if (typeof d === 'string') fail('D_PDESC_INVAL', p.loc, p.text, d);
        let desc = d;
        if (ctx.options.probes !== undefined) {
          const m = matchOrFail(ctx.options.probes, d, p.loc);
          if (m.length === 0 && !zdefs) fail('D_PDESC_ZERO', p.loc, p.text);
          if (m.length === 1 && !/[*?[\]]/.test(p.text)) desc = { ...d, id: m[0]!.id };
          matched.push(...m);
        }
        probes.push(desc);
      }
      // Exact-size copies (pushing leaves spare capacity); the descriptions go into the program.
      const entry = { probes: probes.slice(), matched: matched.length === 0 ? NO_PROBES : matched };
      resolved.set(item.probes, entry);
      ctx.clauses.push({ item, probes: entry.probes, matched: entry.matched });
    }
    if (ctx.ast!.items.length === 0) fail('D_EMPTY', ctx.ast!.loc);
  },
};

/** The catalogue's probes for `d`; a provider's refusal is reported at the description with its tag. */
function matchOrFail(probes: ProbeCatalogue, d: Parameters<ProbeCatalogue['match']>[0], loc: Loc): readonly ProbeInfo[] {
  try {
    return probes.match(d);
  } catch (e) {
    if (e instanceof ProbeMatchError && e.tag in DIAGNOSTICS) fail(e.tag as DiagnosticTag, loc, ...e.args);
    throw e;
  }
}
