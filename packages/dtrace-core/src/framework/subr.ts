// DTrace Subroutines (the DIF_SUBR_* of dtrace_dif_subr): arguments come
// from the tuple stack, as the compiler pushes them; strings are read bounded
// by strsize and results go to scratch. Everything here runs in probe context
// and touches memory only through firing.ts.

import { DIF_SUBR } from '../dif/constants.js';
import { DTRACEFLT, DifFault } from './faults.js';
import { loadValue as load, readBytes, readString, readStringBytes, scratchString, type TupleEntry, type VmFiring } from './firing.js';

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const S64 = (v: bigint): bigint => BigInt.asIntN(64, v);

const arg = (t: readonly TupleEntry[], i: number): bigint => {
  const e = t[i];
  if (!e) throw new DifFault(DTRACEFLT.ILLOP, 0n);
  return e.value;
};
const sarg = (f: VmFiring, t: readonly TupleEntry[], i: number): string => readString(f, arg(t, i), f.strsize);

function basename(s: string): string {
  if (s === '') return '.';
  const t = s.replace(/\/+$/, '');
  if (t === '') return '/';
  return t.slice(t.lastIndexOf('/') + 1);
}
function dirname(s: string): string {
  const t = s.replace(/\/+$/, '');
  if (t === '') return s.startsWith('/') ? '/' : '.';
  const i = t.lastIndexOf('/');
  if (i < 0) return '.';
  const d = t.slice(0, i).replace(/\/+$/, '');
  return d === '' ? '/' : d;
}
/**
 * DIF_SUBR_CLEANPATH, step for step: "//" and "/./" collapse, "/../" backs up
 * to the previous '/', anything else is copied — so "./a", "a/." and "../a"
 * stay as they are, and a relative "a/.." leaves "a" (the kernel's quirks).
 */
export function cleanpath(s: string, size = 256): string {
  const load = (k: number): string => (k < s.length ? s[k]! : '\0');
  const d: string[] = [];
  let i = 0;
  let j = 0;
  let c = '';
  let reload = true;
  for (;;) {
    if (reload) c = load(i++);
    reload = true;
    if (j + 5 >= size) break; // 5 = strlen("/..c\0")
    if (c !== '/') {
      d[j++] = c;
      if (c === '\0') break;
      continue;
    }
    c = load(i++);
    if (c === '/') {
      reload = false; // two slashes: look at this one again
      continue;
    }
    if (c !== '.') {
      d[j++] = '/';
      d[j++] = c;
      if (c === '\0') break;
      continue;
    }
    c = load(i++);
    if (c === '/') {
      reload = false; // "/./"
      continue;
    }
    if (c !== '.') {
      d[j++] = '/';
      d[j++] = '.';
      d[j++] = c;
      if (c === '\0') break;
      continue;
    }
    c = load(i++);
    if (c !== '/' && c !== '\0') {
      d[j++] = '/';
      d[j++] = '.';
      d[j++] = '.';
      d[j++] = c;
      continue;
    }
    // "/../" or "/..\0": back the destination up to the previous '/'.
    i--;
    while (j !== 0 && d[--j] !== '/');
    if (c === '\0') {
      d[++j] = '/';
      break;
    }
  }
  const out = d.slice(0, j).join('');
  const nul = out.indexOf('\0');
  return nul < 0 ? out : out.slice(0, nul);
}
function swap(v: bigint, bytes: number): bigint {
  let r = 0n;
  for (let i = 0; i < bytes; i++) r = (r << 8n) | ((v >> BigInt(8 * i)) & 0xffn);
  return r;
}

/**
 * DIF_SUBR_INET_NTOP's IPv6 text: 16-bit groups in lower-case hexadecimal,
 * the first longest run of two or more zero groups as "::", and an IPv4
 * mapped (::ffff:a.b.c.d) or compatible (::a.b.c.d, not :: or ::1) address
 * with its last four bytes dotted — alone for inet_ntoa6().
 */
export function inet6String(a: Uint8Array, v4Only: boolean): string {
  let firstzero = -1;
  let tryzero = -1;
  let numzero = 1;
  for (let i = 0; i < 16; i++) {
    if (a[i] === 0 && tryzero === -1 && i % 2 === 0) {
      tryzero = i;
      continue;
    }
    if (tryzero !== -1 && (a[i] !== 0 || i === 15)) {
      if (i - tryzero <= numzero) {
        tryzero = -1;
        continue;
      }
      firstzero = tryzero;
      numzero = i - (i % 2) - tryzero;
      tryzero = -1;
      if (a[i] === 0 && i === 15) numzero += 2;
    }
  }
  const zero12 = a.subarray(0, 10).every((b) => b === 0);
  const mapped = zero12 && a[10] === 0xff && a[11] === 0xff;
  const last = ((a[12]! << 24) | (a[13]! << 16) | (a[14]! << 8) | a[15]!) >>> 0;
  const compat = zero12 && a[10] === 0 && a[11] === 0 && last !== 0 && last !== 1;
  let out = '';
  let v6end = 14;
  if (mapped || compat) {
    out = `${a[12]}.${a[13]}.${a[14]}.${a[15]}`;
    if (v4Only) return out;
    v6end = 10;
  }
  // Built backwards from the last group, as the kernel does.
  for (let i = v6end; i >= 0; i -= 2) {
    if (i === firstzero + numzero - 2) {
      out = '::' + out;
      i -= numzero - 2;
      continue;
    }
    if (i < 14 && i !== firstzero - 2) out = ':' + out;
    out = ((a[i]! << 8) + a[i + 1]!).toString(16) + out;
  }
  return out;
}

let randState = 0x2545f4914f6cdd1dn;

/** Runs subroutine `subr` (a DIF_SUBR value) on the arguments in `t`. */
export function callSubroutine(f: VmFiring, subr: number, t: readonly TupleEntry[]): bigint {
  switch (subr) {
    case DIF_SUBR.RAND:
      randState = U64(randState * 6364136223846793005n + 1442695040888963407n);
      return randState >> 33n;
    case DIF_SUBR.STRLEN: return BigInt(sarg(f, t, 0).length);
    case DIF_SUBR.STRJOIN: {
      // DIF_SUBR_STRJOIN: a result that does not fit strsize (with its NUL) is out of scratch space.
      const joined = sarg(f, t, 0) + sarg(f, t, 1);
      if (joined.length >= f.strsize) throw new DifFault(DTRACEFLT.NOSCRATCH, 0n);
      return scratchString(f, joined);
    }
    case DIF_SUBR.SUBSTR: {
      // DIF_SUBR_SUBSTR's arithmetic: a negative index counts from the end and may eat into
      // the length; a negative length stops that many characters before the end.
      const s = sarg(f, t, 0);
      const len = BigInt(s.length);
      const size = BigInt(f.strsize);
      let index = S64(arg(t, 1));
      let remaining = t.length > 2 ? S64(arg(t, 2)) : size;
      if (index < 0n) {
        index += len;
        if (index < 0n && index + remaining > 0n) {
          remaining += index;
          index = 0n;
        }
      }
      if (index >= len || index < 0n) remaining = 0n;
      else if (remaining < 0n) remaining += len - index;
      else if (index + remaining > size) remaining = size - index;
      return scratchString(f, remaining > 0n ? s.slice(Number(index), Number(index + remaining)) : '');
    }
    case DIF_SUBR.INDEX:
    case DIF_SUBR.RINDEX: {
      const s = sarg(f, t, 0);
      const sub = sarg(f, t, 1);
      if (subr === DIF_SUBR.INDEX) {
        const start = t.length > 2 ? Number(S64(arg(t, 2))) : 0;
        return U64(BigInt(s.indexOf(sub, Math.max(0, start))));
      }
      // rindex(): a negative position finds nothing, except the empty string at 0.
      const start = t.length > 2 ? Number(S64(arg(t, 2))) : s.length;
      if (start < 0) return U64(sub.length === 0 ? 0n : -1n);
      return U64(BigInt(s.lastIndexOf(sub, start)));
    }
    case DIF_SUBR.STRCHR:
    case DIF_SUBR.STRRCHR: {
      const base = arg(t, 0);
      const s = readString(f, base, f.strsize);
      const c = String.fromCharCode(Number(arg(t, 1) & 0xffn));
      const i = subr === DIF_SUBR.STRCHR ? s.indexOf(c) : s.lastIndexOf(c);
      return i < 0 ? 0n : scratchString(f, s.slice(i));
    }
    case DIF_SUBR.STRSTR: {
      const s = sarg(f, t, 0);
      const i = s.indexOf(sarg(f, t, 1));
      return i < 0 ? 0n : scratchString(f, s.slice(i));
    }
    case DIF_SUBR.STRTOK: {
      // strtok(s, delims): a NULL s continues from where the last call of this firing stopped.
      const first = arg(t, 0);
      let s: string;
      if (first === 0n) {
        if (f.strtokRest === undefined) return 0n;
        s = f.strtokRest;
      } else {
        s = readString(f, first, f.strsize);
      }
      const delims = sarg(f, t, 1);
      let i = 0;
      while (i < s.length && delims.includes(s[i]!)) i++;
      if (i >= s.length) {
        f.strtokRest = undefined;
        return 0n;
      }
      let j = i;
      while (j < s.length && !delims.includes(s[j]!)) j++;
      // As dtrace_dif_subr keeps dtms_strtok: the next call starts at the delimiter that ended this token.
      f.strtokRest = j < s.length ? s.slice(j) : undefined;
      return scratchString(f, s.slice(i, j));
    }
    case DIF_SUBR.JSON: {
      // json(text, "a.b[2].c"): the member's value as a string; NULL when absent or not JSON.
      let v: unknown;
      try {
        v = JSON.parse(sarg(f, t, 0));
      } catch {
        return 0n;
      }
      const path = sarg(f, t, 1);
      for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
        if (v === null || typeof v !== 'object') return 0n;
        const key = part.startsWith('[') ? Number(part.slice(1, -1)) : part;
        v = (v as Record<string | number, unknown>)[key];
        if (v === undefined) return 0n;
      }
      if (v === null) return scratchString(f, 'null');
      return scratchString(f, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    case DIF_SUBR.LLTOSTR: {
      const base = t.length > 1 ? Number(arg(t, 1)) : 10;
      if (base < 2 || base > 36) throw new DifFault(DTRACEFLT.ILLOP, BigInt(base));
      const v = S64(arg(t, 0));
      // DIF_SUBR_LLTOSTR: the digits of the unsigned value, then "0x" (base 16) or "0" (base 8, or zero in any base).
      const digits = v === 0n ? '' : U64(v).toString(base);
      const s = base === 10 ? v.toString(10) : base === 16 ? `0x${digits || '0'}` : `${base === 8 || v === 0n ? '0' : ''}${digits}`;
      return scratchString(f, s);
    }
    case DIF_SUBR.STRTOLL: {
      // dtrace_strtoll: skip blanks and tabs, an optional sign, "0x" only in base 16 and only before a
      // hexadecimal digit, then digits below the base; the value wraps as an int64_t.
      const base = t.length > 1 ? Number(S64(arg(t, 1))) : 10;
      if (base <= 1 || base > 36) throw new DifFault(DTRACEFLT.ILLOP, BigInt(base));
      const s = sarg(f, t, 0);
      let pos = 0;
      while (s[pos] === ' ' || s[pos] === '\t') pos++;
      let neg = false;
      if (s[pos] === '-' || s[pos] === '+') neg = s[pos++] === '-';
      if (base === 16 && s[pos] === '0' && (s[pos + 1] === 'x' || s[pos + 1] === 'X') && /[0-9a-fA-F]/.test(s[pos + 2] ?? '')) pos += 2;
      let v = 0n;
      for (; pos < s.length; pos++) {
        const ch = s[pos]!;
        if (!/[0-9a-zA-Z]/.test(ch)) break;
        const d = parseInt(ch, 36);
        if (d >= base) break;
        v = BigInt.asIntN(64, v * BigInt(base) + BigInt(d));
      }
      return U64(neg ? -v : v);
    }
    case DIF_SUBR.BASENAME: return scratchString(f, basename(sarg(f, t, 0)));
    case DIF_SUBR.DIRNAME: return scratchString(f, dirname(sarg(f, t, 0)));
    case DIF_SUBR.CLEANPATH: return scratchString(f, cleanpath(sarg(f, t, 0), f.strsize));
    // ASCII letters only, as the kernel's loop over 'a'..'z' / 'A'..'Z'.
    case DIF_SUBR.TOUPPER: return scratchString(f, sarg(f, t, 0).replace(/[a-z]/g, (c) => c.toUpperCase()));
    case DIF_SUBR.TOLOWER: return scratchString(f, sarg(f, t, 0).replace(/[A-Z]/g, (c) => c.toLowerCase()));
    case DIF_SUBR.HTONS: case DIF_SUBR.NTOHS: return swap(arg(t, 0), 2);
    case DIF_SUBR.HTONL: case DIF_SUBR.NTOHL: return swap(arg(t, 0), 4);
    case DIF_SUBR.HTONLL: case DIF_SUBR.NTOHLL: return swap(arg(t, 0), 8);
    case DIF_SUBR.SPECULATION: return BigInt(f.speculation());
    case DIF_SUBR.ALLOCA: return f.arena.alloc(Number(arg(t, 0)));
    case DIF_SUBR.BCOPY: {
      // The destination must lie in scratch (dtrace_inscratch) before anything is read.
      const size = Number(arg(t, 2));
      const dst = arg(t, 1);
      if (!f.arena.isScratch(dst, size)) throw new DifFault(DTRACEFLT.BADADDR, dst);
      const src = readBytes(f, arg(t, 0), size);
      f.arena.bytes.set(src, f.arena.offsetOf(dst, size));
      return 0n;
    }
    case DIF_SUBR.COPYIN: {
      const addr = arg(t, 0);
      const size = Number(arg(t, 1));
      const dst = f.arena.alloc(size);
      const off = f.arena.offsetOf(dst, size);
      for (let i = 0; i < size; i++) {
        const b = f.machine.load(addr + BigInt(i), 1, true);
        if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
        f.arena.bytes[off + i] = Number(b);
      }
      return dst;
    }
    case DIF_SUBR.COPYINTO: {
      const addr = arg(t, 0);
      const size = Number(arg(t, 1));
      const dst = arg(t, 2);
      if (!f.arena.isScratch(dst, size)) throw new DifFault(DTRACEFLT.BADADDR, dst);
      const off = f.arena.offsetOf(dst, size);
      for (let i = 0; i < size; i++) {
        const b = f.machine.load(addr + BigInt(i), 1, true);
        if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
        f.arena.bytes[off + i] = Number(b);
      }
      return 0n;
    }
    case DIF_SUBR.COPYINSTR: {
      const addr = arg(t, 0);
      const max = Math.min(t.length > 1 ? Number(arg(t, 1)) : f.strsize, f.strsize);
      const bytes: number[] = [];
      for (let i = 0; i < max - 1; i++) {
        const b = f.machine.load(addr + BigInt(i), 1, true);
        if (b === undefined) throw new DifFault(DTRACEFLT.BADADDR, addr + BigInt(i));
        if (b === 0n) break;
        bytes.push(Number(b));
      }
      const dst = f.arena.alloc(bytes.length + 1);
      f.arena.bytes.set(bytes, f.arena.offsetOf(dst, 1));
      return dst;
    }
    case DIF_SUBR.PROGENYOF: {
      const pid = Number(arg(t, 0));
      const th = f.machine.thread(f.cpu);
      return th.pid === pid || th.ppid === pid ? 1n : 0n;
    }
    case DIF_SUBR.INET_NTOA: {
      const b = readBytes(f, arg(t, 0), 4);
      return scratchString(f, Array.from(b).join('.'));
    }
    case DIF_SUBR.INET_NTOA6:
      return scratchString(f, inet6String(readBytes(f, arg(t, 0), 16), true));
    case DIF_SUBR.INET_NTOP: {
      // AF_INET is 2; AF_INET6 is 10 in the guest's (Linux) ABI and 26 in illumos' net.d.
      const af = Number(S64(arg(t, 0)));
      if (af === 2) return scratchString(f, Array.from(readBytes(f, arg(t, 1), 4)).join('.'));
      if (af === 10 || af === 26) return scratchString(f, inet6String(readBytes(f, arg(t, 1), 16), false));
      throw new DifFault(DTRACEFLT.ILLOP, BigInt(af));
    }
    case DIF_SUBR.GETMAJOR:
    case DIF_SUBR.GETMINOR: {
      // dev_t layout of the data model: LP64 32-bit major and minor, ILP32 14-bit major and 18-bit minor.
      const dev = U64(arg(t, 0));
      const lp64 = (f.dataModel ?? 'LP64') === 'LP64';
      const minorBits = lp64 ? 32n : 18n;
      if (subr === DIF_SUBR.GETMINOR) return dev & ((1n << minorBits) - 1n);
      return (dev >> minorBits) & (lp64 ? 0xffffffffn : 0x3fffn);
    }
    case DIF_SUBR.MUTEX_OWNED:
    case DIF_SUBR.MUTEX_OWNER:
    case DIF_SUBR.MUTEX_TYPE_ADAPTIVE:
    case DIF_SUBR.MUTEX_TYPE_SPIN: {
      // dtrace_load64 of the kmutex_t, read as illumos's mutex_impl_t: an adaptive mutex's word is its
      // owner thread with flag bits below MUTEX_THREAD (-8); a spin mutex has 0xff in its first byte
      // (m_dummylock) and its lock in the second (m_spinlock). Unmapped memory faults (bad address).
      const m = load(f, arg(t, 0), 8, false, false);
      const adaptive = (m & MUTEX_DEAD) === 0n;
      const owner = m & ~7n;
      switch (subr) {
        case DIF_SUBR.MUTEX_OWNED: return adaptive ? (owner !== 0n ? 1n : 0n) : ((m >> 8n) & 0xffn) !== 0n ? 1n : 0n;
        case DIF_SUBR.MUTEX_OWNER: return adaptive ? owner : 0n;
        case DIF_SUBR.MUTEX_TYPE_ADAPTIVE: return adaptive ? 1n : 0n;
        default: return (m & 0xffn) === 0xffn ? 1n : 0n;
      }
    }
    case DIF_SUBR.RW_READ_HELD:
    case DIF_SUBR.RW_WRITE_HELD:
    case DIF_SUBR.RW_ISWRITER: {
      // dtrace_loadptr of the krwlock_t's rw_wwwh (rwlock_impl.h): the hold count or owner above
      // bit 3, RW_WRITE_LOCKED (4), RW_WRITE_WANTED (2), RW_HAS_WAITERS (1).
      const bits = BigInt(pointerSize(f) * 8);
      const w = load(f, arg(t, 0), pointerSize(f), false, false);
      const locked = BigInt.asUintN(Number(bits), ~7n);
      switch (subr) {
        case DIF_SUBR.RW_READ_HELD: return (w & locked) !== 0n && (w & RW_WRITE_LOCKED) === 0n ? 1n : 0n;
        case DIF_SUBR.RW_WRITE_HELD: {
          const curthread = BigInt.asUintN(Number(bits), f.machine.thread(f.cpu).address ?? 0n);
          return (w & (locked | RW_WRITE_LOCKED)) === (curthread | RW_WRITE_LOCKED) ? 1n : 0n;
        }
        default: return (w & (RW_WRITE_LOCKED | RW_WRITE_WANTED)) !== 0n ? 1n : 0n;
      }
    }
    case DIF_SUBR.MSGSIZE:
    case DIF_SUBR.MSGDSIZE: {
      // The mblk_t chain through b_cont: the bytes between b_rptr and b_wptr of each block (of M_DATA
      // blocks only for msgdsize), at most dtrace_msgdsize_max blocks (illegal operation beyond).
      const ptr = pointerSize(f);
      const first = arg(t, 0);
      let baddr = first;
      let count = 0n;
      let cont = 0;
      while (baddr !== 0n) {
        const wptr = load(f, baddr + BigInt(4 * ptr), ptr, false, false);
        const rptr = load(f, baddr + BigInt(3 * ptr), ptr, false, false);
        if (wptr < rptr) throw new DifFault(DTRACEFLT.BADADDR, first);
        const daddr = load(f, baddr + BigInt(5 * ptr), ptr, false, false);
        baddr = load(f, baddr + BigInt(2 * ptr), ptr, false, false);
        if (cont++ > MSGDSIZE_MAX) throw new DifFault(DTRACEFLT.ILLOP, 0n);
        // dblk_t's db_type follows db_frtnp, db_base, db_lim and db_ref; M_DATA is 0.
        if (subr === DIF_SUBR.MSGDSIZE && load(f, daddr + BigInt(3 * ptr + 1), 1, false, false) !== 0n) continue;
        count += wptr - rptr;
      }
      return U64(count);
    }
    case DIF_SUBR.DDI_PATHNAME: {
      // The walk of a dev_info tree: no machine here has illumos device nodes, so any node is a bad
      // address (illumos faults at the node's first field it reads). A NULL node with no minor
      // name (-1) is the empty path, as the kernel's loop returns it.
      const daddr = arg(t, 0);
      if (daddr === 0n && S64(arg(t, 1)) === -1n) return scratchString(f, '');
      throw new DifFault(DTRACEFLT.BADADDR, daddr);
    }
    case DIF_SUBR.GETF:
      // The current process's file_t for a descriptor, NULL when it has none open there: the
      // framework sees no process file tables, so every descriptor has none.
      return 0n;
    case DIF_SUBR.COPYOUT:
    case DIF_SUBR.COPYOUTSTR: {
      // Destructive (-w): kernel or D memory into the current process's memory. copyout copies
      // `size` bytes; copyoutstr the string and its NUL, at most `size` bytes. Without a user address
      // space to write to, or at a page that is not user-writable, the copy faults (bad address).
      // The whole 64-bit size: a size the source cannot supply faults where it ends.
      const size = Number(arg(t, 2));
      const uaddr = arg(t, 1);
      let bytes: Uint8Array;
      if (subr === DIF_SUBR.COPYOUT) bytes = readBytes(f, arg(t, 0), size);
      else {
        const s = readStringBytes(f, arg(t, 0), size);
        bytes = new Uint8Array(Math.min(s.length + 1, size));
        bytes.set(s.subarray(0, bytes.length));
      }
      if (bytes.length === 0) return 0n;
      const failed = f.machine.storeUser ? f.machine.storeUser(uaddr, bytes) : uaddr;
      if (failed !== undefined) throw new DifFault(DTRACEFLT.BADADDR, failed);
      return 0n;
    }
    default:
      throw new DifFault(DTRACEFLT.ILLOP, BigInt(subr));
  }
}

/** mutex_impl.h's MUTEX_DEAD: the flag bits an adaptive mutex never has set. */
const MUTEX_DEAD = 6n;
const RW_WRITE_WANTED = 2n;
const RW_WRITE_LOCKED = 4n;
/** dtrace_msgdsize_max: the longest mblk_t chain msgsize() and msgdsize() follow. */
const MSGDSIZE_MAX = 128;

function pointerSize(f: VmFiring): number {
  return (f.dataModel ?? 'LP64') === 'LP64' ? 8 : 4;
}
