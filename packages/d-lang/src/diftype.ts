// DIF types of D types, as libdtrace's dt_node_diftype computes them: what
// the code generator gives each DIFO's return value and variables, and the
// assemble pass each aggregation key.
import { CTF_K, DIF_TYPE_CTF, type DifType, difTypeByRef, difTypeInteger, difTypeString } from '@wdtrace/dtrace-core/dif';
import { type CType, resolveType } from '@wdtrace/dtrace-core/types';
import type { CompileContext } from './context.js';
import { isString, isVoid } from './dtypes.js';

/** DIF type of a D type, as dt_node_diftype computes it. */
export function difTypeOf(ctx: CompileContext, t: CType | undefined): DifType {
  if (t === undefined) return { kind: DIF_TYPE_CTF, ckind: CTF_K.INTEGER, flags: 0, size: 0 };
  if (isString(t)) {
    // strsize is settled by the pragmas pass, before any DIF type is asked for.
    const size = ctx.env.stringSize;
    if (ctx.stringDifType?.size !== size) ctx.stringDifType = difTypeString(size);
    return ctx.stringDifType;
  }
  // One DifType per other D type and compilation (immutable, shared between DIFOs).
  let d = ctx.difTypes.get(t);
  if (d === undefined) {
    d = difTypeOfUncached(ctx, t);
    ctx.difTypes.set(t, d);
  }
  return d;
}

function difTypeOfUncached(ctx: CompileContext, t: CType): DifType {
  if (isVoid(t)) return { kind: DIF_TYPE_CTF, ckind: CTF_K.INTEGER, flags: 0, size: 0 };
  if (isString(t)) return difTypeString(ctx.env.stringSize);
  const r = resolveType(t);
  switch (r.kind) {
    case 'integer':
      return difTypeInteger(r.size);
    case 'enum':
      return difTypeInteger(r.size, CTF_K.ENUM);
    case 'pointer':
      return difTypeInteger(r.size, CTF_K.POINTER);
    case 'float':
      return { kind: DIF_TYPE_CTF, ckind: CTF_K.FLOAT, flags: 0, size: r.size };
    case 'array':
      return difTypeByRef(ctx.env.sizeOf(r), CTF_K.ARRAY);
    case 'struct':
      return difTypeByRef(r.size, CTF_K.STRUCT);
    case 'union':
      return difTypeByRef(r.size, CTF_K.UNION);
    default:
      return difTypeInteger(8);
  }
}
