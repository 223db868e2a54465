// The structures behind curpsinfo, curlwpsinfo and curcpu, which illumos
// builds with kernel translators and the framework here builds directly:
// filled from the machine's thread and CPU identity into scratch, laid out
// by the D type dictionary the compiler uses (so member offsets agree).
import { createCTypeDictionary, createDTypeDictionary } from '../types/builtins.js';
import { findMember, resolveType, sizeOfType, type CType } from '../types/ctype.js';
import type { ThreadIdentity } from './machine.js';

type DataModel = 'ILP32' | 'LP64';

const layouts = new Map<DataModel, { psinfo: CType; lwpsinfo: CType; cpuinfo: CType }>();

function structs(model: DataModel): { psinfo: CType; lwpsinfo: CType; cpuinfo: CType } {
  let l = layouts.get(model);
  if (!l) {
    const d = createDTypeDictionary(createCTypeDictionary(model));
    const get = (n: string): CType => {
      const t = d.lookupType(n);
      if (!t) throw new Error(`type dictionary lacks ${n}`);
      return resolveType(t);
    };
    l = { psinfo: get('psinfo_t'), lwpsinfo: get('lwpsinfo_t'), cpuinfo: get('cpuinfo_t') };
    layouts.set(model, l);
  }
  return l;
}

type FieldValue = bigint | string;

function fill(t: CType, fields: Record<string, FieldValue>): Uint8Array {
  const out = new Uint8Array(sizeOfType(t));
  const view = new DataView(out.buffer);
  for (const [name, value] of Object.entries(fields)) {
    const m = findMember(t, name);
    if (!m) continue;
    const size = sizeOfType(m.type);
    if (typeof value === 'string') {
      const b = new TextEncoder().encode(value).subarray(0, Math.max(0, size - 1));
      out.set(b, m.offset);
      continue;
    }
    switch (size) {
      case 1: view.setUint8(m.offset, Number(BigInt.asUintN(8, value))); break;
      case 2: view.setUint16(m.offset, Number(BigInt.asUintN(16, value)), true); break;
      case 4: view.setUint32(m.offset, Number(BigInt.asUintN(32, value)), true); break;
      case 8: view.setBigUint64(m.offset, BigInt.asUintN(64, value), true); break;
    }
  }
  return out;
}

export function psinfoBytes(model: DataModel, th: ThreadIdentity): Uint8Array {
  return fill(structs(model).psinfo, {
    pr_nlwp: 1n,
    pr_pid: BigInt(th.pid),
    pr_ppid: BigInt(th.ppid),
    pr_pgid: BigInt(th.pid),
    pr_sid: BigInt(th.pid),
    pr_uid: BigInt(th.uid),
    pr_euid: BigInt(th.uid),
    pr_gid: BigInt(th.gid),
    pr_egid: BigInt(th.gid),
    pr_fname: th.execname,
    pr_psargs: th.execname,
    pr_argc: 1n,
    pr_dmodel: model === 'LP64' ? 2n : 1n, // PR_MODEL_LP64 / PR_MODEL_ILP32
  });
}

export function lwpsinfoBytes(model: DataModel, th: ThreadIdentity, cpu: number): Uint8Array {
  return fill(structs(model).lwpsinfo, {
    pr_lwpid: BigInt(th.tid),
    pr_state: 6n, // SONPROC
    pr_sname: BigInt('O'.charCodeAt(0)),
    pr_onpro: BigInt(cpu),
    pr_bindpro: -1n,
    pr_bindpset: -1n,
    pr_clname: 'TS',
  });
}

export function cpuinfoBytes(model: DataModel, cpu: number): Uint8Array {
  return fill(structs(model).cpuinfo, { cpu_id: BigInt(cpu), cpu_pset: -1n, cpu_chip: 0n, cpu_lgrp: 0n });
}
