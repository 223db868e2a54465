// Pass: identifiers and scopes of the declarations — typedefs, struct,
// union and enum definitions, global, thread-local (self) and clause-local
// (this) variable declarations including associative arrays, extern kernel
// symbols, inline definitions, translators and provider definitions. They
// enter the type environment and the symbol tables in program order, with
// dtrace's redeclaration and storage-class rules.
import { type CType, findMember, resolveType } from '@wdtrace/dtrace-core/types';
import type { DeclarationItem, InlineItem, ProviderItem, TranslatorItem } from '../ast.js';
import type { CompileContext, ProviderDefinition } from '../context.js';
import { CompileError, fail } from '../diagnostics.js';
import { isStructOrUnion, isVoid } from '../dtypes.js';
import { Cooker, argumentCompatible, dtypeName } from '../semantics.js';
import type { Pass } from './pass.js';

function declare(ctx: CompileContext, cooker: Cooker, item: DeclarationItem): void {
  const base = ctx.env.resolveSpecifier(item.specifier, (spec) => cooker.defineTagged(spec));
  if (item.declarators.length === 0) {
    if (item.specifier.tagged === undefined) fail('D_DECL_USELESS', item.loc);
    return;
  }
  for (const { declarator, init } of item.declarators) {
    if (init !== undefined) fail('D_SYNTAX', declarator.loc, '"="');
    const name = declarator.name;
    const tuple = declarator.derivations.find((d) => d.kind === 'array' && d.tuple !== undefined);
    const type = ctx.env.applyDeclarator(base, declarator, (x) => cooker.constantInt(x, 'D_DECL_ARRSUB'), (tn) => cooker.resolveTypeName(tn));
    const keys = tuple !== undefined && tuple.kind === 'array' ? tuple.tuple!.map((tn) => cooker.resolveTypeName(tn)) : undefined;
    if (declarator.derivations.some((d) => d.kind === 'array' && d.size === undefined && d.tuple === undefined) && item.storage !== 'typedef' && item.storage !== 'extern') {
      fail('D_DECL_ARRNULL', declarator.loc, name);
    }
    // dt_node_decl: a function prototype at file scope (no storage class, or
    // static) is a D extern declaration.
    const storage = resolveType(type).kind === 'function' && (item.storage === undefined || item.storage === 'static') ? 'extern' : item.storage;
    switch (storage) {
      case 'typedef': {
        const prior = ctx.env.lookup(name);
        if (prior !== undefined && dtypeName(prior) !== dtypeName(type) && !(prior.kind === 'typedef' && dtypeName(prior.target) === dtypeName(type))) {
          fail('D_DECL_TYPERED', declarator.loc, name);
        }
        ctx.env.user.defineTypedef(name, type);
        continue;
      }
      case 'static':
      case 'register':
      case 'auto':
        fail('D_DECL_BADCLASS', item.loc, storage);
        break;
      case 'extern': {
        // dt_node_decl and dt_module_extern: an extern enters the D module's
        // symbols with its declared type; declared again, the type must be the
        // same. A name no loaded object defines is still declared: as
        // dtrace_lookup_by_name gives such an extern, its value is 0.
        const prior = ctx.externs.get(name);
        if (prior !== undefined) {
          if (dtypeName(prior.type) !== dtypeName(type)) fail('D_DECL_IDRED', declarator.loc, `D\`${name}`);
          continue;
        }
        const sym = ctx.env.chain.lookupSymbol(name);
        ctx.externs.set(name, { type, address: sym?.address ?? 0n });
        continue;
      }
      default:
        break;
    }
    if (resolveType(type).kind === 'function') continue;
    if (isVoid(type)) fail('D_DECL_VOIDOBJ', declarator.loc, name);
    const rt = resolveType(type);
    if ((rt.kind === 'struct' || rt.kind === 'union') && !rt.complete) fail('D_DECL_INCOMPLETE', declarator.loc, dtypeName(type), name);
    const kind = keys !== undefined ? 'array' : 'scalar';
    if (item.storage === 'this') {
      if (keys !== undefined) fail('D_DECL_LOCASSC', declarator.loc, name);
      if (ctx.declaredLocals.has(name)) fail('D_DECL_IDRED', declarator.loc, name);
      cooker.defineVariable('local', name, 'scalar', type, true, {});
    } else if (item.storage === 'self') {
      if (ctx.threadLocals.has(name)) fail('D_DECL_IDRED', declarator.loc, name);
      cooker.defineVariable('thread', name, kind, type, true, {}, keys);
    } else {
      if (ctx.globals.has(name) || ctx.inlines.has(name) || ctx.env.chain.lookupEnumConstant(name) !== undefined) fail('D_DECL_IDRED', declarator.loc, name);
      cooker.defineVariable('global', name, kind, type, true, {}, keys);
    }
  }
}

function defineInline(ctx: CompileContext, cooker: Cooker, item: InlineItem): void {
  const base = ctx.env.resolveSpecifier(item.specifier, (spec) => cooker.defineTagged(spec));
  const type = ctx.env.applyDeclarator(base, item.declarator, (x) => cooker.constantInt(x, 'D_DECL_ARRSUB'), (tn) => cooker.resolveTypeName(tn));
  const name = item.declarator.name;
  if (ctx.inlines.has(name) || ctx.globals.has(name)) fail('D_DECL_IDRED', item.loc, name);
  const value = cooker.cook(item.value, {});
  cooker.checkAssignable(type, value, item.loc, '=');
  ctx.inlines.set(name, { name, type, value: item.value });
}

/**
 * A translator definition, as dt_node_xlator() and dt_cook_xlator() check
 * it: the output must be a complete struct or union; no translator between
 * the same two types may exist yet; every member must be a member of the
 * output type, and its expression — typed now, against the input
 * parameter's type — must be assignable to it as an argument would be.
 */
function defineTranslator(ctx: CompileContext, cooker: Cooker, item: TranslatorItem): void {
  // dt_node_xlator and dt_cook_xlator report at the definition's end.
  const at = item.end ?? item.loc;
  const output = cooker.resolveTypeName(item.output);
  const input = cooker.resolveTypeName(item.input);
  if (cooker.lookupTranslator(output, input, undefined, true) !== undefined) {
    fail('D_XLATE_REDECL', at, dtypeName(input), dtypeName(output));
  }
  const ro = resolveType(output);
  if ((ro.kind === 'struct' || ro.kind === 'union' || ro.kind === 'enum') && !ro.complete) {
    throw new CompileError({ severity: 'error', tag: 'D_XLATE_SOU', message: `incomplete struct/union/enum ${dtypeName(output)}`, location: at });
  }
  if (!isStructOrUnion(output)) fail('D_XLATE_SOU', at);
  const members = new Map<string, (typeof item.members)[number]['value']>();
  for (const m of item.members) {
    const mm = findMember(output, m.name);
    if (mm === undefined) fail('D_XLATE_MEMB', at, m.name, dtypeName(output));
    const cooked = cooker.cook(m.value, { translatorInput: { name: item.inputName, type: input } });
    if (cooked.k === 'agg' || !argumentCompatible(cooked.type!, cooked, mm.type)) {
      fail('D_XLATE_INCOMPAT', at, m.name, dtypeName(mm.type), dtypeName(cooked.type));
    }
    members.set(m.name, m.value);
  }
  ctx.translators.push({ id: ctx.translators.length, output, input, inputName: item.inputName, members });
}

function defineProvider(ctx: CompileContext, cooker: Cooker, item: ProviderItem): void {
  if (!/^[A-Za-z_][\w]*$/.test(item.name) || /\d$/.test(item.name)) fail('D_PROV_BADNAME', item.loc, item.name);
  const seen = new Set<string>();
  const probes: ProviderDefinition['probes'][number][] = [];
  for (const p of item.probes) {
    const pname = p.name.replace(/__/g, '-');
    if (seen.has(pname)) fail('D_PROV_PRDUP', p.loc, item.name, pname);
    seen.add(pname);
    if (p.params.length > 10) fail('D_PROV_PRARGLEN', p.loc, item.name, pname);
    const native = p.params.map((t) => cooker.resolveTypeName(t));
    let translated: CType[] | undefined;
    if (p.xlated !== undefined) {
      if (p.xlated.length > 10) fail('D_PROV_PRARGLEN', p.loc, item.name, pname);
      translated = p.xlated.map((t) => cooker.resolveTypeName(t));
    }
    probes.push({ name: pname, native, ...(translated !== undefined ? { translated } : {}) });
  }
  ctx.providers.push({ name: item.name, probes });
}

export const scopesPass: Pass = {
  name: 'scopes',
  reads: 'ast declarations, inlines, translators, providers',
  writes: 'type environment (user types), globals, threadLocals, declaredLocals, externs, inlines, translators',
  run(ctx) {
    const cooker = new Cooker(ctx);
    const items = ctx.ast!.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      switch (item.k) {
        case 'decl':
          declare(ctx, cooker, item);
          break;
        case 'inline':
          defineInline(ctx, cooker, item);
          break;
        case 'translator':
          defineTranslator(ctx, cooker, item);
          break;
        case 'provider':
          defineProvider(ctx, cooker, item);
          break;
        default:
          break;
      }
    }
  },
};
