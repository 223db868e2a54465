// The run loop's straight-line path: cached instructions with specialised
// handlers run back to back (one code translation per page) with lazy
// arithmetic flags. Each test runs code from a warm decoded-instruction cache
// (the first run decodes, the next ones take the straight-line path) and
// checks it against the same code on a core with the cache off, where every
// instruction runs its generic handler with exact flags (those are checked
// against the host CPU by the exec-vectors test), or against exact
// expectations: budget stops, device-callback stops and interrupts, code
// changed by the guest, and code crossing into a page mapped elsewhere.
import { describe, expect, it } from 'vitest';
import { bareCore, type BareCore } from './core-harness.js';

const STOP_BUDGET = 0, STOP_HALT = 1, STOP_EXCEPTION = 2;
const CODE = 0x10000;
const MARKS = 0x80000; // jcc outcomes, one byte per branch (r13)
const DATA = 0x90000; // bytes byte compares, setcc and cmov read and write (r14)

/** mulberry32 */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const INTERESTING = [0n, 1n, 2n, 0x7fn, 0x80n, 0xffn, 0x7fffffffn, 0x80000000n, 0xffffffffn, 0x100000000n,
  0x7fffffffffffffffn, 0x8000000000000000n, 0xffffffffffffffffn, 0xfffffffffffffffen];

/**
 * A program of `n` segments: two registers loaded with random or edge values
 * (movabs, a generic handler), a flag-setting instruction (the specialised
 * ALU forms at 32 and 64 bits, byte compares with registers and memory,
 * shifts, imul, and inc/dec which keep CF), sometimes a flag-neutral
 * instruction (mov, shl $0, nops, byte moves), then a reader of the flags
 * with a random condition: setcc (register, memory), cmovcc (register,
 * memory) or a jcc over a byte store to MARKS + k; ends with hlt.
 */
function flagProgram(seed: number, n: number): number[] {
  const r = prng(seed);
  const pick = <T>(a: T[]): T => a[r() % a.length]!;
  const value = () => (r() % 2 ? pick(INTERESTING) : (BigInt(r()) << 32n) | BigInt(r()));
  const code: number[] = [];
  const imm64 = (v: bigint) => { for (let i = 0n; i < 64n; i += 8n) code.push(Number((v >> i) & 0xffn)); };
  for (let k = 0; k < n; k++) {
    const a = r() % 4, b = r() % 4; // rax rcx rdx rbx
    code.push(0x48, 0xb8 + a); imm64(value());
    if (a !== b) { code.push(0x48, 0xb8 + b); imm64(value()); }
    const w = r() % 2 ? [0x48] : [];
    const modrm = (reg: number, rm: number) => 0xc0 | (reg << 3) | rm;
    const kind = r() % 15;
    if (kind < 4) {
      const op = pick([0, 1, 4, 5, 6, 7]); // add or and sub xor cmp
      if (r() % 2) code.push(...w, (op << 3) | 1, modrm(b, a));
      else code.push(...w, (op << 3) | 3, modrm(a, b));
    } else if (kind < 5) code.push(...w, 0x85, modrm(b, a)); // test
    else if (kind < 7) {
      const op = pick([0, 1, 4, 5, 6, 7]);
      if (r() % 2) code.push(...w, 0x83, modrm(op, a), r() & 0xff);
      else { code.push(...w, 0x81, modrm(op, a)); const v = r(); code.push(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24); }
    } else if (kind < 8) {
      const sub = pick([4, 5, 7]);
      if (r() % 2) code.push(...w, 0xd1, modrm(sub, a)); else code.push(...w, 0xc1, modrm(sub, a), r() % 70);
    } else if (kind < 9) code.push(...w, 0x0f, 0xaf, modrm(a, b)); // imul
    else if (kind < 10) code.push(...w, 0xff, modrm(r() % 2, a)); // inc / dec: CF kept from the previous operation
    else if (kind < 11) code.push(0x80, modrm(7, a + (r() % 2) * 4), pick([0, 1, 0x7f, 0x80, 0xff, r() & 0xff])); // cmpb $imm, al..bl / ah..bh
    else if (kind < 12) code.push(0x41, 0x80, 0x7e, r() & 0x7f, pick([0, 1, 0x7f, 0x80, 0xff, r() & 0xff])); // cmpb $imm, d8(%r14)
    else if (kind < 13) {
      // testb $imm / testb %reg with a byte register or d8(%r14)
      const imm = r() % 2 === 0, mem = r() % 2 === 0;
      const m8 = mem ? [0x46 | ((r() % 8) << 3), r() & 0x7f] : [modrm(r() % 8, r() % 8)];
      code.push(...(mem ? [0x41] : []), imm ? 0xf6 : 0x84, ...(imm ? [m8[0]! & ~0x38, ...m8.slice(1), r() & 0xff] : m8));
    } else if (kind < 14) {
      // op $imm32, %eax/%rax (05 0D 25 2D 35 3D A9)
      const op = pick([0x05, 0x0d, 0x25, 0x2d, 0x35, 0x3d, 0xa9]);
      const v = pick([0, 1, 0x7fffffff, 0x80000000, 0xffffffff, r()]);
      code.push(...w, op, v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
    } else code.push(0x3c, pick([0, 1, 0x7f, 0x80, 0xff])); // cmpb $imm, %al (generic)
    const between = r() % 7;
    if (between === 1) code.push(0x48, 0x89, modrm(a, 6)); // mov %rax.., %rsi
    else if (between === 2) code.push(0xc1, modrm(4, 7), 0); // shl $0, %edi: flags unchanged
    else if (between === 3) code.push(0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0); // nopw %cs:0(%rax,%rax)
    else if (between === 4) code.push(0x66, 0x90); // xchg %ax,%ax
    else if (between === 6) {
      // immediate moves: movl/movabs $imm, %rsi; movl/movq $imm32, %edi / d8(%r14)
      const which = r() % 4;
      if (which === 0) code.push(0xbe, r() & 0xff, r() & 0xff, r() & 0xff, r() & 0xff);
      else if (which === 1) { code.push(0x48, 0xbe); imm64(value()); }
      else if (which === 2) code.push(...w, 0xc7, 0xc7, r() & 0xff, r() & 0xff, r() & 0xff, r() & 0xff);
      else code.push(w.length ? 0x49 : 0x41, 0xc7, 0x46, r() & 0x7f, r() & 0xff, r() & 0xff, r() & 0xff, r() & 0xff);
    } else if (between === 5) {
      // byte moves (flags unchanged): movb $imm, %ah..; movb %al.., d8(%r14); movb d8(%r14), %cl..; movb %dh, %bl
      const which = r() % 4;
      if (which === 0) code.push(0xc6, modrm(0, 4 + (r() % 4)), r() & 0xff);
      else if (which === 1) code.push(0x41, 0x88, 0x46 | ((r() % 4) << 3), r() & 0x7f);
      else if (which === 2) code.push(0x41, 0x8a, 0x46 | ((r() % 4) << 3), r() & 0x7f);
      else code.push(0x88, modrm(4 + (r() % 4), r() % 4));
    }
    const use = r() % 4;
    const cc = r() % 16;
    if (use === 0) code.push(0x0f, 0x90 + cc, modrm(0, r() % 8)); // setcc %al..%bl / %ah..%bh
    else if (use === 1) code.push(0x41, 0x0f, 0x90 + cc, 0x46, r() & 0x7f); // setcc d8(%r14)
    else if (use === 2) {
      if (r() % 2) code.push(...w, 0x0f, 0x40 + cc, modrm(b, a)); // cmovcc reg
      else code.push(w.length ? 0x49 : 0x41, 0x0f, 0x40 + cc, 0x46 | (b << 3), r() & 0x7f); // cmovcc d8(%r14)
    } else {
      code.push(0x70 + cc, 8); // jcc over the store
      code.push(0x41, 0xc6, 0x85, k & 0xff, (k >> 8) & 0xff, 0, 0, 1); // movb $1, k(%r13)
    }
  }
  code.push(0xf4);
  return code;
}

async function machine(build: 'debug' | 'release', cache: boolean, code: number[]): Promise<BareCore> {
  const m = await bareCore(1 << 20, build);
  m.core.setCodeCache(cache);
  m.poke(CODE, code);
  return m;
}

function start(m: BareCore, flags: number) {
  m.ram().fill(0, MARKS, MARKS + 0x1000);
  const r = prng(flags);
  for (let i = 0; i < 0x100; i++) m.ram()[DATA + i] = i < 8 ? [0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x81, 0x7e][i]! : r() & 0xff;
  m.regs().fill(0n);
  m.regs()[13] = BigInt(MARKS);
  m.regs()[14] = BigInt(DATA);
  m.core.wake();
  m.core.setFlagsValue(flags);
  m.setRip(BigInt(CODE));
}

function state(m: BareCore) {
  return {
    regs: [...m.regs()].map((v) => v.toString(16)),
    flags: (m.core.getFlags() & 0x8d5).toString(16),
    marks: Buffer.from(m.ram().subarray(MARKS, MARKS + 0x1000)).toString('hex'),
    data: Buffer.from(m.ram().subarray(DATA, DATA + 0x100)).toString('hex'),
    retired: m.core.retiredLo(),
  };
}

describe('run loop: straight-line path and lazy flags', () => {
  for (const build of ['release', 'debug'] as const) {
    it(`takes every jcc after every specialised flag-setting form as the generic handlers do (${build})`, async () => {
      for (let seed = 1; seed <= 6; seed++) {
        const code = flagProgram(seed, 400);
        const ref = await machine(build, false, code);
        const fast = await machine(build, true, code);
        for (let pass = 0; pass < 3; pass++) {
          const flags = [0x2, 0x8d7, 0x45, 0x801][pass]!;
          start(ref, flags);
          start(fast, flags);
          expect(ref.core.run(1 << 20)).toBe(STOP_HALT);
          expect(fast.core.run(1 << 20)).toBe(STOP_HALT);
          const want = state(ref), got = state(fast);
          expect(got.regs).toEqual(want.regs);
          expect(got.marks).toEqual(want.marks);
          expect(got.data).toEqual(want.data);
          expect(got.flags).toBe(want.flags);
        }
        // the program exercises both outcomes of its branches
        expect(state(ref).marks).toMatch(/01/);
        expect(state(ref).marks.slice(0, 800)).toMatch(/00/);
      }
    });
  }

  it('runs prefixed nops in a straight-line run, and a LOCK-prefixed nop still raises #UD', async () => {
    const m = await bareCore(1 << 20, 'release');
    // addl $1,%eax; nopw %cs:0(%rax,%rax); xchg %ax,%ax; pause; nopl 0(%rax); cmpl $20,%eax; jne .-start; lock nopl (%rax)
    const code = [0x83, 0xc0, 0x01, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0, 0x66, 0x90, 0xf3, 0x90, 0x0f, 0x1f, 0x40, 0x00,
      0x83, 0xf8, 0x14, 0x75, 0xe6, 0xf0, 0x0f, 0x1f, 0x00];
    m.poke(0x1000, code);
    for (let pass = 0; pass < 2; pass++) {
      m.regs()[0] = 0n;
      m.setRip(0x1000n);
      const retired0 = m.core.retiredLo();
      expect(m.core.run(1000)).toBe(STOP_EXCEPTION);
      expect(m.core.stopVector()).toBe(6);
      expect(m.core.stopPcLo()).toBe(0x101a);
      expect(m.regs()[0]).toBe(20n);
      expect(m.core.retiredLo() - retired0).toBe(20 * 7);
    }
  });

  it('runs indirect jumps and calls (register and memory) and push $imm as the generic handlers do', async () => {
    // 0x10000: movl $0x10040, %ebx            bb 40 00 01 00
    //          movq $0x10050, 0x800(%rbx)     48 c7 83 00 08 00 00 50 00 01 00   (function pointer in memory)
    // loop:    callq *%rbx                     ff d3          (f1 at 0x10040: addl $3,%eax; ret)
    //          callq *0x800(%rbx)              ff 93 00 08 00 00 (f2 at 0x10050: push $7; push $-300; pop %rdx; pop %rsi; addl %esi,%ecx; ret)
    //          leaq 0x12(%rip), %rdi           48 8d 3d 12 00 00 00
    //          jmpq *%rdi                      ff e7          -> skips the hlt below to `next`
    //          hlt x16
    // next:    subl $1, %ebp; jne loop; hlt
    const code = new Array(0x100).fill(0xf4);
    const put = (at: number, bytes: number[]) => bytes.forEach((b, i) => { code[at + i] = b; });
    put(0x00, [0xbb, 0x40, 0x00, 0x01, 0x00]);
    put(0x05, [0x48, 0xc7, 0x83, 0x00, 0x08, 0x00, 0x00, 0x50, 0x00, 0x01, 0x00]);
    put(0x10, [0xff, 0xd3, 0xff, 0x93, 0x00, 0x08, 0x00, 0x00, 0x48, 0x8d, 0x3d, 0x12, 0x00, 0x00, 0x00, 0xff, 0xe7]);
    put(0x31, [0x83, 0xed, 0x01, 0x75, 0xda, 0xf4]); // next: 0x1f + 0x12 = 0x31; jne back to 0x10
    put(0x40, [0x83, 0xc0, 0x03, 0xc3]);
    put(0x50, [0x6a, 0x07, 0x68, 0xd4, 0xfe, 0xff, 0xff, 0x5a, 0x5e, 0x01, 0xf1, 0xc3]);
    const ref = await machine('release', false, code);
    const fast = await machine('release', true, code);
    for (const m of [ref, fast]) {
      for (let pass = 0; pass < 2; pass++) {
        start(m, 2);
        m.regs()[4] = 0x70000n;
        m.regs()[5] = 50n;
        expect(m.core.run(100_000)).toBe(STOP_HALT);
        expect(m.rip()).toBe(BigInt(CODE + 0x37));
        expect(m.regs()[0]).toBe(150n);
        expect(m.regs()[1]).toBe(350n);
        expect(m.regs()[2]).toBe(BigInt.asUintN(64, -300n));
      }
    }
    expect(state(fast)).toEqual(state(ref));
  });

  it('stops after exactly `budget` instructions inside a straight-line run', async () => {
    // loop: addl $1,%eax; addq %rax,%rcx; subl $3,%edx; cmpl $1000000,%eax; jne loop; hlt
    // (cmpl in its 81 /7 form: the jne is fused with it, and budgets end between the two too)
    const code = [0x83, 0xc0, 0x01, 0x48, 0x01, 0xc1, 0x83, 0xea, 0x03, 0x81, 0xf8, 0x40, 0x42, 0x0f, 0x00, 0x75, 0xef, 0xf4];
    const ref = await machine('release', false, code);
    const fast = await machine('release', true, code);
    start(ref, 2);
    start(fast, 2);
    const r = prng(7);
    for (let i = 0; i < 300; i++) {
      const budget = 1 + (r() % (i < 100 ? 7 : 5000));
      expect(fast.core.run(budget)).toBe(STOP_BUDGET);
      expect(ref.core.run(budget)).toBe(STOP_BUDGET);
      expect(fast.rip()).toBe(ref.rip());
      expect(state(fast)).toEqual(state(ref));
    }
  });

  it('ends a warm straight-line run after the store whose device callback asked for a stop or raised an interrupt', async () => {
    let stopOnWrite = false, interruptOnWrite = false;
    const m = await bareCore(4 << 20, 'release', {
      mmioWrite: () => {
        if (stopOnWrite) m.core.requestStop();
        if (interruptOnWrite) m.core.raiseInterrupt(0x20);
      },
    });
    // 0x1000: addl $1,%eax; movl %eax,(%rbx); addl $1,%ecx; addl $1,%edx; cmpl $50,%eax; jne 0x1000; hlt
    m.poke(0x1000, [0x83, 0xc0, 0x01, 0x89, 0x03, 0x83, 0xc1, 0x01, 0x83, 0xc2, 0x01, 0x83, 0xf8, 0x32, 0x75, 0xee, 0xf4]);
    m.poke(0x3000, [0xcc]); // vector 0x20 handler: int3
    const dv = new DataView(m.ram().buffer, m.ram().byteOffset);
    dv.setBigUint64(0x2000 + 0x20 * 16, 0x3000n | (0x08n << 16n) | (0x8en << 40n), true); // interrupt gate -> 0x3000
    m.core.setIdtr(0x2000, 0, 0xfff);
    m.regs()[4] = 0x8000n;
    m.regs()[3] = 0xf000_0000n;
    m.setRip(0x1000n);
    m.core.setFlagsValue(0x2); // IF clear while warming up
    expect(m.core.run(1000)).toBe(STOP_HALT);
    expect(m.regs()[1]).toBe(50n);
    // warm: stop requested by the store in the 11th iteration
    m.regs()[0] = 0n; m.regs()[1] = 0n; m.regs()[2] = 0n;
    m.core.wake();
    m.setRip(0x1000n);
    const retired0 = m.core.retiredLo();
    stopOnWrite = true;
    expect(m.core.run(1000)).toBe(STOP_BUDGET);
    expect(m.rip()).toBe(0x1005n);
    expect(m.regs()[0]).toBe(1n);
    expect(m.regs()[1]).toBe(0n);
    expect(m.core.retiredLo() - retired0).toBe(2);
    stopOnWrite = false;
    // an interrupt raised by the store is taken right after it (IF = 1)
    m.core.setFlagsValue(0x202);
    interruptOnWrite = true;
    expect(m.core.run(1000)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    expect(m.core.stopPcLo()).toBe(0x3000);
    expect(m.regs()[0]).toBe(2n); // the next iteration's add and store ran, nothing after
    expect(m.regs()[1]).toBe(1n);
    expect(m.regs()[2]).toBe(1n);
  });

  it('sees a guest store into an instruction ahead of it on the same page', async () => {
    const m = await bareCore(1 << 20, 'release');
    // 0x1000: movb %cl, 0x1009 (the immediate of the next instruction); addl $imm8,%eax;
    //         addl $1,%ecx; cmpl $16,%ecx; jne 0x1000; hlt
    m.poke(0x1000, [0x88, 0x0c, 0x25, 0x09, 0x10, 0x00, 0x00, 0x83, 0xc0, 0x00, 0x83, 0xc1, 0x01, 0x83, 0xf9, 0x10, 0x75, 0xee, 0xf4]);
    for (let pass = 0; pass < 3; pass++) {
      m.regs()[0] = 0n; m.regs()[1] = 0n;
      m.core.wake();
      m.setRip(0x1000n);
      expect(m.core.run(1000)).toBe(STOP_HALT);
      expect(m.regs()[0]).toBe(120n); // 0 + 1 + ... + 15
    }
  });

  it('translates again when straight-line code runs into the next virtual page, mapped elsewhere', async () => {
    const m = await bareCore(4 << 20, 'release');
    const dv = new DataView(m.ram().buffer, m.ram().byteOffset);
    const q = (a: number, v: bigint) => dv.setBigUint64(a, v, true);
    q(0x1000, 0x2003n); q(0x2000, 0x3003n); q(0x3000, 0x4003n);
    const map = (va: number, pa: number) => q(0x4000 + (va >> 12) * 8, BigInt(pa) | 3n);
    map(0x10000, 0x20000); // code page 1
    map(0x11000, 0x30000); // code page 2, not after page 1 physically
    m.core.setControlRegister(3, 0x1000, 0);
    m.core.setControlRegister(4, 0x20, 0);
    m.core.writeMsr(0xc0000080, 0x500, 0);
    m.core.setControlRegister(0, 0x80000001, 0);
    m.core.setSegments(0x08, 0x10);
    // va 0x10ff4: four `addl $1,%eax` up to the page end, then at va 0x11000 (pa 0x30000): addl $16,%eax; hlt
    m.poke(0x20ff4, [0x83, 0xc0, 0x01, 0x83, 0xc0, 0x01, 0x83, 0xc0, 0x01, 0x83, 0xc0, 0x01]);
    m.poke(0x30000, [0x83, 0xc0, 0x10, 0xf4]);
    // what physically follows page 1 (pa 0x21000) must not run; it is in the
    // decoded-instruction cache from running it at va 0x12000
    map(0x12000, 0x21000);
    m.poke(0x21000, [0x83, 0xc0, 0x40, 0xf4]);
    m.setRip(0x12000n);
    expect(m.core.run(100)).toBe(STOP_HALT);
    expect(m.regs()[0]).toBe(0x40n);
    for (let pass = 0; pass < 3; pass++) {
      m.regs()[0] = 0n;
      m.core.wake();
      m.setRip(0x10ff4n);
      expect(m.core.run(100)).toBe(STOP_HALT);
      expect(m.regs()[0]).toBe(20n);
      expect(m.rip()).toBe(0x11004n);
    }
  });
});
