// The kernel-object subroutines (mutex_*, rw_*, msgsize, msgdsize,
// ddi_pathname, getf, copyout, copyoutstr) run as illumos's
// dtrace_dif_subr does them, on a test machine with a little kernel and
// user memory.
import { describe, expect, it } from 'vitest';
import { DIF_OP, DIF_SUBR, difInstrCall, difInstrPushts, difInstrRet, difInstrSets, difInstrSetx } from '../src/dif/index.js';
import { verifyDifo } from '../src/framework/verify.js';
import { Arena } from '../src/framework/arena.js';
import { readString, type VmFiring } from '../src/framework/firing.js';
import { difEmulate, loadDifo } from '../src/framework/vm.js';
import { IDLE_THREAD, type MachineInterface } from '../src/framework/machine.js';
import { DifFault, DTRACEFLT } from '../src/framework/faults.js';
import { NO_SYMBOLS } from '../src/framework/machine.js';
import { buildDifo, DIF_STRING256 } from '../src/builder.js';

/** Kernel memory from 0x10000 and user memory from 0x400000, one page each; user memory is writable. */
class TestMachine implements MachineInterface {
  readonly ncpus = 1;
  readonly symbols = NO_SYMBOLS;
  readonly kernel = new Uint8Array(4096);
  readonly user = new Uint8Array(4096);
  constructor(readonly curthread = 0xffff_ff00_1234_5600n) {}
  now(): bigint {
    return 0n;
  }
  walltime(): bigint {
    return 0n;
  }
  private region(addr: bigint, size: number, user: boolean): [Uint8Array, number] | undefined {
    const [mem, base] = user ? [this.user, 0x400000n] : [this.kernel, 0x10000n];
    const off = addr - base;
    return off >= 0n && off + BigInt(size) <= BigInt(mem.length) ? [mem, Number(off)] : undefined;
  }
  load(addr: bigint, size: number, user: boolean): bigint | undefined {
    const r = this.region(addr, size, user);
    if (!r) return undefined;
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(r[0][r[1] + i]!);
    return v;
  }
  storeUser(addr: bigint, bytes: Uint8Array): bigint | undefined {
    for (let i = 0; i < bytes.length; i++) {
      const r = this.region(addr + BigInt(i), 1, true);
      if (!r) return addr + BigInt(i);
      r[0][r[1]] = bytes[i]!;
    }
    return undefined;
  }
  thread() {
    return { ...IDLE_THREAD, address: this.curthread };
  }
  kernelStack(): bigint[] {
    return [];
  }
  userStack(): bigint[] {
    return [];
  }
  /** Writes a little-endian word of `size` bytes into kernel memory. */
  poke(addr: bigint, v: bigint, size = 8): void {
    for (let i = 0; i < size; i++) this.kernel[Number(addr - 0x10000n) + i] = Number((v >> BigInt(8 * i)) & 0xffn);
  }
}

/** Calls `subr` with integer arguments (and, first, string arguments from the string table). */
function call(machine: MachineInterface, subr: number, ints: bigint[], strings: string[] = [], dataModel: 'LP64' | 'ILP32' = 'LP64'): { value: bigint; f: VmFiring } {
  const buf: number[] = [DIF_OP.FLUSHTS << 24];
  let offset = 0;
  for (const s of strings) {
    buf.push(difInstrSets(offset, 1), difInstrPushts(DIF_OP.PUSHTR, 1, 0, 1));
    offset += new TextEncoder().encode(s).length + 1;
  }
  ints.forEach((_, i) => buf.push(difInstrSetx(i, 1), difInstrPushts(DIF_OP.PUSHTV, 0, 0, 1)));
  buf.push(difInstrCall(subr, 2), difInstrRet(2));
  const d = buildDifo(buf, { strings, inttab: ints, rtype: subr === DIF_SUBR.DDI_PATHNAME ? DIF_STRING256 : undefined });
  expect(verifyDifo(d).errors).toEqual([]);
  const arena = new Arena(4096, 65536);
  const f: VmFiring = {
    machine,
    arena,
    variables: { loadGlobal: () => 0n, storeGlobal: () => {}, loadThread: () => 0n, storeThread: () => {}, loadAssoc: () => 0n, storeAssoc: () => {} },
    locals: new Map(),
    cpu: 0,
    probeId: 1,
    epid: 1,
    args: [],
    probe: { provider: 'dtrace', module: '', function: '', name: 'BEGIN' },
    timestamp: 0n,
    strsize: 256,
    speculation: () => 0,
    instructions: 0,
    dataModel,
  };
  return { value: difEmulate(loadDifo(d, arena), f), f };
}

function fault(fn: () => unknown): { fault: number; address: bigint } {
  try {
    fn();
  } catch (e) {
    if (e instanceof DifFault) return { fault: e.fault, address: e.address };
    throw e;
  }
  throw new Error('no fault');
}

describe('mutex and rwlock subroutines', () => {
  it('read an adaptive mutex word as its owner and a spin mutex by its lock byte', () => {
    const m = new TestMachine();
    m.poke(0x10000n, 0xffff_ff00_4444_5500n | 1n); // adaptive, owned, waiters bit
    m.poke(0x10008n, 0n); // adaptive, free
    m.poke(0x10010n, 0x01ffn); // spin, held
    m.poke(0x10018n, 0x00ffn); // spin, free
    const v = (subr: number, a: bigint) => call(m, subr, [a]).value;
    expect([0x10000n, 0x10008n, 0x10010n, 0x10018n].map((a) => v(DIF_SUBR.MUTEX_OWNED, a))).toEqual([1n, 0n, 1n, 0n]);
    expect([0x10000n, 0x10008n, 0x10010n].map((a) => v(DIF_SUBR.MUTEX_OWNER, a))).toEqual([0xffff_ff00_4444_5500n, 0n, 0n]);
    expect([0x10000n, 0x10010n].map((a) => v(DIF_SUBR.MUTEX_TYPE_ADAPTIVE, a))).toEqual([1n, 0n]);
    expect([0x10000n, 0x10010n].map((a) => v(DIF_SUBR.MUTEX_TYPE_SPIN, a))).toEqual([0n, 1n]);
  });
  it('read a rwlock word as readers, a writer (this thread or another) and write-wanted', () => {
    const m = new TestMachine();
    m.poke(0x10000n, 2n * 8n); // two readers
    m.poke(0x10008n, m.curthread | 4n); // write-locked by curthread
    m.poke(0x10010n, 0xffff_ff00_9999_0000n | 4n); // write-locked by another thread
    m.poke(0x10018n, 8n | 2n); // a reader, a writer waiting
    const v = (subr: number, a: bigint) => call(m, subr, [a]).value;
    expect([0x10000n, 0x10008n, 0x10010n, 0x10018n].map((a) => v(DIF_SUBR.RW_READ_HELD, a))).toEqual([1n, 0n, 0n, 1n]);
    expect([0x10000n, 0x10008n, 0x10010n, 0x10018n].map((a) => v(DIF_SUBR.RW_WRITE_HELD, a))).toEqual([0n, 1n, 0n, 0n]);
    expect([0x10000n, 0x10008n, 0x10010n, 0x10018n].map((a) => v(DIF_SUBR.RW_ISWRITER, a))).toEqual([0n, 1n, 1n, 1n]);
  });
  it('fault on an unmapped or misaligned lock as dtrace_load64/dtrace_loadptr do', () => {
    const m = new TestMachine();
    for (const subr of [DIF_SUBR.MUTEX_OWNED, DIF_SUBR.MUTEX_OWNER, DIF_SUBR.MUTEX_TYPE_ADAPTIVE, DIF_SUBR.MUTEX_TYPE_SPIN, DIF_SUBR.RW_READ_HELD, DIF_SUBR.RW_WRITE_HELD, DIF_SUBR.RW_ISWRITER]) {
      expect(fault(() => call(m, subr, [0x9000n]))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x9000n });
      expect(fault(() => call(m, subr, [0x10004n]))).toEqual({ fault: DTRACEFLT.BADALIGN, address: 0x10004n });
    }
    // An ILP32 rwlock word is 4 bytes: 4-byte alignment suffices.
    m.poke(0x10004n, 8n, 4);
    expect(call(m, DIF_SUBR.RW_READ_HELD, [0x10004n], [], 'ILP32').value).toBe(1n);
  });
});

describe('msgsize and msgdsize', () => {
  /** An mblk_t at `at` (b_cont, b_rptr, b_wptr, b_datap at 16, 24, 32, 40) and its dblk_t's db_type at byte 25. */
  const mblk = (m: TestMachine, at: bigint, cont: bigint, len: bigint, dblk: bigint, type: number) => {
    m.poke(at + 16n, cont);
    m.poke(at + 24n, 0x20000n);
    m.poke(at + 32n, 0x20000n + len);
    m.poke(at + 40n, dblk);
    m.kernel[Number(dblk - 0x10000n) + 25] = type;
  };
  it('add up the blocks of the b_cont chain, msgdsize only the M_DATA ones', () => {
    const m = new TestMachine();
    mblk(m, 0x10000n, 0x10100n, 100n, 0x10800n, 0);
    mblk(m, 0x10100n, 0x10200n, 20n, 0x10840n, 1); // M_PROTO
    mblk(m, 0x10200n, 0n, 3n, 0x10880n, 0);
    expect(call(m, DIF_SUBR.MSGSIZE, [0x10000n]).value).toBe(123n);
    expect(call(m, DIF_SUBR.MSGDSIZE, [0x10000n]).value).toBe(103n);
    expect(call(m, DIF_SUBR.MSGSIZE, [0n]).value).toBe(0n);
  });
  it('fault on an unmapped block, a write pointer below the read pointer and a chain that loops', () => {
    const m = new TestMachine();
    // The first load is b_wptr.
    expect(fault(() => call(m, DIF_SUBR.MSGSIZE, [0x9000n]))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x9020n });
    mblk(m, 0x10000n, 0n, 0n, 0x10800n, 0);
    m.poke(0x10000n + 32n, 0x1ffffn);
    expect(fault(() => call(m, DIF_SUBR.MSGSIZE, [0x10000n]))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x10000n });
    mblk(m, 0x10000n, 0x10000n, 1n, 0x10800n, 0);
    expect(fault(() => call(m, DIF_SUBR.MSGDSIZE, [0x10000n])).fault).toBe(DTRACEFLT.ILLOP);
  });
});

describe('ddi_pathname and getf', () => {
  it('ddi_pathname faults at a device node (none exist here) and gives "" for NULL without a minor', () => {
    const m = new TestMachine();
    expect(fault(() => call(m, DIF_SUBR.DDI_PATHNAME, [0x10000n, 0n]))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x10000n });
    const r = call(m, DIF_SUBR.DDI_PATHNAME, [0n, BigInt.asUintN(64, -1n)]);
    expect(readString(r.f, r.value, 256)).toBe('');
  });
  it('getf finds no file for a descriptor', () => {
    expect(call(new TestMachine(), DIF_SUBR.GETF, [0n]).value).toBe(0n);
  });
});

describe('copyout and copyoutstr', () => {
  it('write kernel bytes and strings into user memory', () => {
    const m = new TestMachine();
    m.poke(0x10000n, 0x0807060504030201n);
    call(m, DIF_SUBR.COPYOUT, [0x10000n, 0x400010n, 5n]);
    expect([...m.user.subarray(0x10, 0x16)]).toEqual([1, 2, 3, 4, 5, 0]);
    m.user.fill(0x2e, 0x20, 0x30);
    call(m, DIF_SUBR.COPYOUTSTR, [0x400020n, 16n], ['hi']);
    expect([...m.user.subarray(0x20, 0x24)]).toEqual([0x68, 0x69, 0, 0x2e]);
    // At most `size` bytes: a longer string is cut without its NUL.
    call(m, DIF_SUBR.COPYOUTSTR, [0x400028n, 3n], ['hello']);
    expect([...m.user.subarray(0x28, 0x2c)]).toEqual([0x68, 0x65, 0x6c, 0x2e]);
  });
  it('fault at the first address that is not user memory, or at an unreadable source', () => {
    const m = new TestMachine();
    expect(fault(() => call(m, DIF_SUBR.COPYOUT, [0x10000n, 0x400ffcn, 8n]))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x401000n });
    expect(m.user[0xffc]).toBe(0);
    expect(fault(() => call(m, DIF_SUBR.COPYOUT, [0x9000n, 0x400000n, 8n]))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x9000n });
    // A machine without user memory: every copyout faults at its destination.
    const bare: MachineInterface = { ncpus: 1, symbols: NO_SYMBOLS, now: () => 0n, walltime: () => 0n, load: (a, s, u) => m.load(a, s, u), thread: () => IDLE_THREAD, kernelStack: () => [], userStack: () => [] };
    expect(fault(() => call(bare, DIF_SUBR.COPYOUTSTR, [0x400000n, 16n], ['x']))).toEqual({ fault: DTRACEFLT.BADADDR, address: 0x400000n });
  });
});
