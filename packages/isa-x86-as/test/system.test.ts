// Long-mode system architecture and DTrace support on a hand-built machine:
// 4-level page tables, CPL 3 user code, syscall/sysret, #PF with CR2 and the
// error code delivered through the IDT with the TSS RSP0 stack switch, iretq,
// external interrupts; fbt emulations, displaced execution and NOFAULT reads.
// Instruction bytes are spelled out with their AT&T text in comments.
import { describe, expect, it } from 'vitest';
import { bareCore, type BareCore } from './core-harness.js';
import { X86Emulation } from '../src/index.js';

const STOP_BUDGET = 0, STOP_HALT = 1, STOP_EXCEPTION = 2;
const P = 1n, W = 2n, U = 4n;

function setupLongMode(m: BareCore) {
  const ram = m.ram();
  const dv = new DataView(ram.buffer, ram.byteOffset);
  const q = (a: number, v: bigint) => dv.setBigUint64(a, v, true);
  // PML4 0x1000 -> PDPT 0x2000 -> PD 0x3000 -> PT 0x4000 (first 2 MiB)
  q(0x1000, 0x2000n | P | W | U);
  q(0x2000, 0x3000n | P | W | U);
  q(0x3000, 0x4000n | P | W | U);
  const map = (va: number, flags: bigint) => q(0x4000 + (va >> 12) * 8, BigInt(va) | flags);
  for (let a = 0x5000; a < 0x10000; a += 0x1000) map(a, P | W); // kernel
  map(0x10000, P | U); // user code, read-only
  map(0x20000, P | W | U); // user stack
  map(0x21000, P | W | U);
  // 0x30000 left unmapped
  const core = m.core;
  core.setControlRegister(3, 0x1000, 0);
  core.setControlRegister(4, 0x20, 0); // PAE
  core.writeMsr(0xc0000080, 0x501 | 0x800, 0); // EFER: SCE, LME, LMA, NXE
  core.setControlRegister(0, 0x80010001, 0); // PG, WP, PE
  core.writeMsr(0xc0000081, 0, (0x10 << 16) | 0x08); // STAR
  core.writeMsr(0xc0000082, 0x7000, 0); // LSTAR
  core.writeMsr(0xc0000084, 0x200, 0); // FMASK: IF
  // IDT at 0x5000: gates 14 -> 0x7100, 0x20 -> 0x7200 (interrupt gates, DPL 0)
  const gate = (v: number, target: number) => {
    const lo = BigInt(target & 0xffff) | (0x08n << 16n) | (0x8en << 40n) | (BigInt(target >>> 16) << 48n);
    q(0x5000 + v * 16, lo);
    q(0x5000 + v * 16 + 8, 0n);
  };
  gate(14, 0x7100);
  gate(0x20, 0x7200);
  core.setIdtr(0x5000, 0, 0xfff);
  q(0x6000 + 4, 0x9000n); // TSS RSP0
  core.setTss(0x6000, 0);
  return { ram, q, dv };
}

function enterUser(m: BareCore, rip: number, rsp: number) {
  m.core.setSegments(0x23, 0x1b);
  m.regs()[4] = BigInt(rsp);
  m.setRip(BigInt(rip));
  m.core.setFlagsValue(0x202);
}

describe('long mode', () => {
  it('runs user code that makes a system call through LSTAR and returns with sysretq', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    // user: movl $42, %eax; syscall; movl %eax, %ebx; int3
    m.poke(0x10000, [0xb8, 42, 0, 0, 0, 0x0f, 0x05, 0x89, 0xc3, 0xcc]);
    // kernel: addq $1, %rax; sysretq
    m.poke(0x7000, [0x48, 0x83, 0xc0, 0x01, 0x48, 0x0f, 0x07]);
    enterUser(m, 0x10000, 0x21000);
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    expect(m.core.stopPcLo()).toBe(0x10009);
    expect(m.regs()[3]).toBe(43n);
    expect(m.regs()[1]).toBe(0x10007n); // rcx = return rip
    expect(m.core.getCpl()).toBe(3);
    expect(m.core.getCs()).toBe(0x23);
  });

  it('stops on a user #PF with CR2 and the error code, then delivers it to the IDT on the RSP0 stack', async () => {
    const m = await bareCore(4 << 20);
    const { dv } = setupLongMode(m);
    // user: movl 0x30000, %eax; int3
    m.poke(0x10000, [0x8b, 0x04, 0x25, 0x00, 0x00, 0x03, 0x00, 0xcc]);
    // kernel #PF handler: addq $8, %rsp; addq $7, (%rsp); iretq
    m.poke(0x7100, [0x48, 0x83, 0xc4, 0x08, 0x48, 0x83, 0x04, 0x24, 0x07, 0x48, 0xcf]);
    enterUser(m, 0x10000, 0x21000);
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(14);
    expect(m.core.stopAddressLo()).toBe(0x30000);
    expect(m.core.stopErrorCode()).toBe(4); // user, read, not present
    expect(m.core.getControlRegisterLo(2)).toBe(0x30000);
    expect(m.core.deliverException(14, m.core.stopErrorCode())).toBe(0);
    expect(m.rip()).toBe(0x7100n);
    expect(m.core.getCpl()).toBe(0);
    expect(m.regs()[4]).toBe(0x9000n - 48n);
    const frame = [0, 8, 16, 24, 32, 40].map((o) => dv.getBigUint64(0x9000 - 48 + o, true));
    expect(frame).toEqual([4n, 0x10000n, 0x23n, 0x202n, 0x21000n, 0x1bn]);
    expect(m.core.getFlags() & 0x200).toBe(0); // interrupt gate clears IF
    // handler skips the faulting instruction and returns to user mode
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    expect(m.core.stopPcLo()).toBe(0x10007);
    expect(m.core.getCpl()).toBe(3);
    expect(m.regs()[4]).toBe(0x21000n);
  });

  it('raises #PF on a user write to a read-only page and #GP on a privileged instruction at CPL 3', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    // movl %eax, 0x10100 (user code page is read-only)
    m.poke(0x10000, [0x89, 0x04, 0x25, 0x00, 0x01, 0x01, 0x00]);
    enterUser(m, 0x10000, 0x21000);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(14);
    expect(m.core.stopErrorCode()).toBe(7); // present, write, user
    m.poke(0x10000, [0xfa]); // cli
    m.setRip(0x10000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(13);
  });

  it('keeps what one privilege level or access kind may do from serving another (data TLB)', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    // kernel: movl 0x8000, %eax (supervisor page); movl 0x10100, %ecx (user, read-only); int3
    m.poke(0x7000, [0x8b, 0x04, 0x25, 0x00, 0x80, 0x00, 0x00, 0x8b, 0x0c, 0x25, 0x00, 0x01, 0x01, 0x00, 0xcc]);
    m.core.setSegments(0x08, 0x10);
    m.regs()[4] = 0x9000n;
    m.setRip(0x7000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    // the same supervisor page read from user mode faults
    m.poke(0x10000, [0x8b, 0x04, 0x25, 0x00, 0x80, 0x00, 0x00, 0xcc]); // movl 0x8000, %eax; int3
    enterUser(m, 0x10000, 0x21000);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(14);
    expect(m.core.stopErrorCode()).toBe(5); // present, read, user
    // a page user code just read is still not writable: movl 0x10100, %eax; movl %eax, 0x10100
    m.poke(0x10000, [0x8b, 0x04, 0x25, 0x00, 0x01, 0x01, 0x00, 0x89, 0x04, 0x25, 0x00, 0x01, 0x01, 0x00]);
    m.setRip(0x10000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(14);
    expect(m.core.stopPcLo()).toBe(0x10007);
    expect(m.core.stopErrorCode()).toBe(7); // present, write, user
    // nor by the kernel with CR0.WP set, after reading it: movl 0x10100, %ecx; movl %ecx, 0x10100
    m.poke(0x7000, [0x8b, 0x0c, 0x25, 0x00, 0x01, 0x01, 0x00, 0x89, 0x0c, 0x25, 0x00, 0x01, 0x01, 0x00, 0xcc]);
    m.core.setSegments(0x08, 0x10);
    m.setRip(0x7000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(14);
    expect(m.core.stopPcLo()).toBe(0x7007);
    expect(m.core.stopErrorCode()).toBe(3); // present, write, supervisor
    // a write the kernel may do; then the page made read-only and invlpg'd: the next write faults
    const dv = new DataView(m.ram().buffer, m.ram().byteOffset);
    m.poke(0x7000, [0x89, 0x0c, 0x25, 0x00, 0x80, 0x00, 0x00, 0xcc]); // movl %ecx, 0x8000; int3
    m.setRip(0x7000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    dv.setBigUint64(0x4000 + 8 * 8, 0x8001n, true); // PTE of 0x8000: present, read-only
    // invlpg 0x8000; movl %ecx, 0x8000; int3
    m.poke(0x7000, [0x0f, 0x01, 0x3c, 0x25, 0x00, 0x80, 0x00, 0x00, 0x89, 0x0c, 0x25, 0x00, 0x80, 0x00, 0x00, 0xcc]);
    m.setRip(0x7000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect([m.core.stopVector(), m.core.stopPcLo(), m.core.stopErrorCode(), m.core.stopAddressLo()]).toEqual([14, 0x7008, 3, 0x8000]);
  });

  it('delivers an external interrupt at an instruction boundary when IF=1 and wakes a halted CPU', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    m.poke(0x7000, [0xfb, 0xf4, 0xcc]); // sti; hlt; int3
    m.poke(0x7200, [0x48, 0xcf]); // iretq
    m.core.setSegments(0x08, 0x10);
    m.regs()[4] = 0x8000n;
    m.setRip(0x7000n);
    expect(m.core.run(100)).toBe(STOP_HALT);
    m.core.raiseInterrupt(0x20);
    m.core.wake();
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    expect(m.core.stopPcLo()).toBe(0x7002);
  });

  it('counts retired instructions and reads them with rdtsc plus the host offset', async () => {
    const m = await bareCore(1 << 20);
    m.core.setTscOffset(1000, 0);
    m.ram().set([0x90, 0x90, 0x0f, 0x31, 0xcc], 0x100); // nop; nop; rdtsc; int3
    m.setRip(0x100n);
    m.core.run(10);
    expect(m.regs()[0]).toBe(1002n);
    expect(m.core.retiredLo()).toBe(3);
  });

  it('invlpg drops both the fetch and the data translation of a page the kernel remaps', async () => {
    for (const build of ['debug', 'release'] as const) {
      const m = await bareCore(4 << 20, build);
      const { q } = setupLongMode(m);
      q(0x4000 + 4 * 8, 0x4000n | P | W); // the page table itself, to edit it
      // VA 0xc000 maps frame 0xc000 first, then frame 0xd000: movl $1 / $2, %eax; retq
      m.poke(0xc000, [0xb8, 1, 0, 0, 0, 0xc3]);
      m.poke(0xd000, [0xb8, 2, 0, 0, 0, 0xc3]);
      m.poke(0x8000, [
        0xff, 0xd3, //                      callq *%rbx      (eax = 1)
        0x89, 0xc6, //                      movl %eax, %esi
        0x8b, 0x3b, //                      movl (%rbx), %edi (data translation of the old frame)
        0x48, 0xc7, 0x02, 0x03, 0xd0, 0, 0, // movq $0xd003, (%rdx)  PTE of 0xc000 -> frame 0xd000
        0x0f, 0x01, 0x3b, //                invlpg (%rbx)
        0x8b, 0x0b, //                      movl (%rbx), %ecx
        0xff, 0xd3, //                      callq *%rbx      (eax = 2)
        0xcc, //                            int3
      ]);
      const r = m.regs();
      r[3] = 0xc000n; // rbx
      r[2] = 0x4060n; // rdx: PTE of VA 0xc000
      r[4] = 0x9800n;
      m.setRip(0x8000n);
      expect(m.core.run(100)).toBe(STOP_EXCEPTION);
      expect(m.core.stopVector()).toBe(3);
      expect(r[6]).toBe(1n); // esi: old code ran
      expect(r[7]).toBe(0x1b8n); // edi: old frame read
      expect(r[1]).toBe(0x2b8n); // ecx: new frame read
      expect(r[0]).toBe(2n); // eax: new code ran
    }
  });
});

describe('DTrace support', () => {
  it('performs the fbt emulations for a displaced first byte', async () => {
    const m = await bareCore(1 << 20);
    const ram = m.ram();
    const dv = new DataView(ram.buffer, ram.byteOffset);
    m.poke(0x1000, [0xcc]); // int3 over `pushq %rbp`
    m.regs()[4] = 0x8000n;
    m.regs()[5] = 0x1234n;
    m.setRip(0x1000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
    expect(m.core.stopPcLo()).toBe(0x1000);
    expect(m.core.emulate(X86Emulation.pushRbp)).toBe(-1);
    expect(m.regs()[4]).toBe(0x7ff8n);
    expect(dv.getBigUint64(0x7ff8, true)).toBe(0x1234n);
    expect(m.rip()).toBe(0x1001n);
    m.regs()[5] = 0x9999n;
    m.setRip(0x1000n);
    expect(m.core.emulate(X86Emulation.popRbp)).toBe(-1);
    expect(m.regs()[5]).toBe(0x1234n);
    expect(m.regs()[4]).toBe(0x8000n);
    dv.setBigUint64(0x8000, 0x4444n, true);
    m.setRip(0x1000n);
    expect(m.core.emulate(X86Emulation.ret)).toBe(-1);
    expect(m.rip()).toBe(0x4444n);
    m.regs()[5] = 0x7000n;
    dv.setBigUint64(0x7000, 0x5555n, true);
    m.setRip(0x1000n);
    expect(m.core.emulate(X86Emulation.leave)).toBe(-1);
    expect(m.regs()[4]).toBe(0x7008n);
    expect(m.regs()[5]).toBe(0x5555n);
    m.setRip(0x1000n);
    expect(m.core.emulate(X86Emulation.nop)).toBe(-1);
    expect(m.rip()).toBe(0x1001n);
  });

  it('executes a displaced instruction with its original pc semantics', async () => {
    const m = await bareCore(1 << 20);
    const input = () => new Uint8Array(m.core.memory.buffer, (m.core.DECODE_INPUT as WebAssembly.Global).value as number, 16);
    // leaq 16(%rip), %rax at 0x2000
    input().set([0x48, 0x8d, 0x05, 0x10, 0, 0, 0]);
    m.setRip(0x2000n);
    expect(m.core.executeDisplaced(7)).toBe(-1);
    expect(m.regs()[0]).toBe(0x2017n);
    expect(m.rip()).toBe(0x2007n);
    // callq +0x100 at 0x3000
    m.regs()[4] = 0x8000n;
    input().set([0xe8, 0x00, 0x01, 0, 0]);
    m.setRip(0x3000n);
    expect(m.core.executeDisplaced(5)).toBe(-1);
    expect(m.rip()).toBe(0x3105n);
    expect(new DataView(m.ram().buffer, m.ram().byteOffset).getBigUint64(0x7ff8, true)).toBe(0x3005n);
    // jne -2 at 0x4000 with ZF clear: branch taken relative to 0x4000
    m.core.setFlagsValue(0x2);
    input().set([0x75, 0xfe]);
    m.setRip(0x4000n);
    expect(m.core.executeDisplaced(2)).toBe(-1);
    expect(m.rip()).toBe(0x4000n);
  });

  it('executes a displaced REP string instruction to completion instead of re-running it at the breakpoint', async () => {
    const m = await bareCore(1 << 20);
    const input = () => new Uint8Array(m.core.memory.buffer, (m.core.DECODE_INPUT as WebAssembly.Global).value as number, 16);
    // rep stosb at 0x5000: rcx = 5, al = 0x5a, rdi = 0x6000
    m.ram().fill(0, 0x6000, 0x6010);
    input().set([0xf3, 0xaa]);
    m.regs()[0] = 0x5an;
    m.regs()[1] = 5n;
    m.regs()[7] = 0x6000n;
    m.setRip(0x5000n);
    const before = m.core.retiredLo();
    expect(m.core.executeDisplaced(2)).toBe(-1);
    expect(m.rip()).toBe(0x5002n);
    expect(m.regs()[1]).toBe(0n);
    expect(m.regs()[7]).toBe(0x6005n);
    expect([...m.ram().subarray(0x6000, 0x6006)]).toEqual([0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0]);
    expect(m.core.retiredLo() - before).toBe(5); // one per iteration, as in the run loop
    // repe cmpsb stops at the first difference
    m.ram().set([1, 2, 3, 4], 0x6100);
    m.ram().set([1, 2, 9, 4], 0x6200);
    input().set([0xf3, 0xa6]);
    m.regs()[1] = 4n;
    m.regs()[6] = 0x6100n;
    m.regs()[7] = 0x6200n;
    m.setRip(0x5000n);
    expect(m.core.executeDisplaced(2)).toBe(-1);
    expect(m.rip()).toBe(0x5002n);
    expect(m.regs()[1]).toBe(1n);
    expect(m.regs()[6]).toBe(0x6103n);
    // rep with rcx = 0 does nothing and moves on
    input().set([0xf3, 0x48, 0xab]);
    m.regs()[1] = 0n;
    m.setRip(0x5000n);
    expect(m.core.executeDisplaced(3)).toBe(-1);
    expect(m.rip()).toBe(0x5003n);
  });

  it('reads guest virtual memory without faulting and reports the first bad address', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    m.poke(0x21ffc, [1, 2, 3, 4]);
    const n = m.core.readVirtualSafe(0x21ffc, 0, 16);
    expect(n).toBe(4); // 0x22000 is unmapped
    expect(m.core.safeFaultAddressLo()).toBe(0x22000);
    expect([...new Uint8Array(m.core.memory.buffer, m.core.SAFE_BUFFER.value, 4)]).toEqual([1, 2, 3, 4]);
    // a CPU stopped in user mode still reads kernel pages in probe context
    m.core.setSegments(0x23, 0x1b);
    m.poke(0x7000, [9, 8, 7]);
    expect(m.core.readVirtualSafe(0x7000, 0, 3)).toBe(3);
    expect(m.core.getCpl()).toBe(3);
    // no fault became pending for the guest
    m.core.setSegments(0x08, 0x10);
    m.poke(0x7000, [0xcc]);
    m.setRip(0x7000n);
    expect(m.core.run(1)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
  });

  it('never runs a stale decode: guest stores and host patches to code are seen', async () => {
    const m = await bareCore(1 << 20);
    m.poke(0x1000, [0xff, 0xc0, 0xcc]); // incl %eax; int3
    m.regs()[0] = 0n;
    m.setRip(0x1000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.regs()[0]).toBe(1n);
    m.poke(0x1000, [0xff, 0xc8]); // host patch: decl %eax
    m.setRip(0x1000n);
    m.core.run(10);
    expect(m.regs()[0]).toBe(0n);
    // guest store: movw $0xc0ff, 0x1000 (back to incl); int3
    m.poke(0x2000, [0x66, 0xc7, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00, 0xff, 0xc0, 0xcc]);
    m.setRip(0x2000n);
    m.core.run(10);
    m.setRip(0x1000n);
    m.core.run(10);
    expect(m.regs()[0]).toBe(1n);
    // a store into the page before, at its end, into an instruction crossing pages
    m.poke(0x2ffe, [0xff, 0xc0, 0xcc]); // incl %eax crossing 0x3000; int3
    m.setRip(0x2ffen);
    m.core.run(10);
    expect(m.regs()[0]).toBe(2n);
    m.poke(0x4000, [0xc6, 0x04, 0x25, 0xff, 0x2f, 0x00, 0x00, 0xc8, 0xcc]); // movb $0xc8, 0x2fff; int3
    m.setRip(0x4000n);
    m.core.run(10);
    m.setRip(0x2ffen);
    m.core.run(10);
    expect(m.regs()[0]).toBe(1n);
  });

  it('keeps each CPU its own registers, rip, retired count and pending interrupts', async () => {
    const m = await bareCore(1 << 20);
    m.poke(0x1000, [0xff, 0xc0, 0xeb, 0xfc]); // loop: incl %eax; jmp loop
    m.poke(0x2000, [0xff, 0xc8, 0xeb, 0xfc]); // loop: decl %eax; jmp loop
    m.core.selectCpu(0);
    m.regs()[0] = 100n;
    m.setRip(0x1000n);
    m.core.selectCpu(1);
    m.regs()[0] = 100n;
    m.setRip(0x2000n);
    expect(m.core.run(10)).toBe(STOP_BUDGET);
    m.core.selectCpu(0);
    expect(m.core.run(20)).toBe(STOP_BUDGET);
    expect(m.regs()[0]).toBe(110n);
    expect(m.core.retiredLo()).toBe(20);
    m.core.selectCpu(1);
    expect(m.regs()[0]).toBe(95n);
    expect(m.core.retiredLo()).toBe(10);
    expect(m.core.selectedCpu()).toBe(1);
  });

  it('keeps an interrupt raised before `sti; hlt` pending until after the hlt (STI shadow)', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    m.poke(0x7000, [0xfb, 0xf4, 0xcc]); // sti; hlt; int3
    m.poke(0x7200, [0x48, 0xcf]); // iretq
    m.core.setSegments(0x08, 0x10);
    m.regs()[4] = 0x8000n;
    m.setRip(0x7000n);
    m.core.raiseInterrupt(0x20);
    expect(m.core.run(100)).toBe(STOP_EXCEPTION); // delivered after hlt, no halt stop
    expect(m.core.stopVector()).toBe(3);
    expect(m.core.stopPcLo()).toBe(0x7002);
  });

  it('loads segment selectors, TR from the GDT and reloads CS with lretq', async () => {
    const m = await bareCore(4 << 20);
    const { q } = setupLongMode(m);
    // GDT at 0x5800: null, code 0x08, data 0x10, TSS 0x18 (16 bytes) with base 0x12345678_9abcdef0
    q(0x5800 + 0x18, 0x0067n | (0xdef0n << 16n) | (0xbcn << 32n) | (0x89n << 40n) | (0x9an << 56n));
    q(0x5800 + 0x20, 0x12345678n);
    // lgdt descriptor at 0x5f00: limit 0x27, base 0x5800
    const dv = new DataView(m.ram().buffer, m.ram().byteOffset);
    dv.setUint16(0x5f00, 0x27, true);
    dv.setBigUint64(0x5f02, 0x5800n, true);
    m.poke(0x7000, [
      0x0f, 0x01, 0x14, 0x25, 0x00, 0x5f, 0x00, 0x00, // lgdtq 0x5f00
      0xb8, 0x18, 0x00, 0x00, 0x00, // movl $0x18, %eax
      0x0f, 0x00, 0xd8, // ltr %ax
      0xb8, 0x10, 0x00, 0x00, 0x00, // movl $0x10, %eax
      0x8e, 0xd8, // movw %ax, %ds
      0x8e, 0xd0, // movw %ax, %ss
      0x6a, 0x08, // pushq $8
      0x68, 0x22, 0x70, 0x00, 0x00, // pushq $0x7022 (the movl below)
      0x48, 0xcb, // lretq
      0x8c, 0xdb, // movl %ds, %ebx
      0xcc, // int3
    ]);
    m.core.setSegments(0x08, 0x10);
    m.regs()[4] = 0x8000n;
    m.setRip(0x7000n);
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect([m.core.stopVector(), m.core.stopPcLo().toString(16), m.core.stopAddressLo().toString(16)]).toEqual([3, '7024', '0']);
    expect(m.regs()[3]).toBe(0x10n);
    expect(m.core.getSs()).toBe(0x10);
    expect(m.core.getCs()).toBe(0x08);
  });

  it('sends loads and stores in the device window to the host, 8-byte ones as two 4-byte halves', async () => {
    const log: string[] = [];
    const m = await bareCore(1 << 20, 'debug', {
      mmioRead: (cpu, paddr, size) => { log.push(`r ${cpu} ${(paddr >>> 0).toString(16)} ${size}`); return 0x11223344; },
      mmioWrite: (cpu, paddr, size, value) => { log.push(`w ${cpu} ${(paddr >>> 0).toString(16)} ${size} ${(value >>> 0).toString(16)}`); },
    });
    m.regs()[3] = 0xf0000010n;
    m.regs()[0] = 0xaabbccdd55667788n;
    // movq %rax, (%rbx); movl (%rbx), %ecx; movb %al, 4(%rbx); int3
    m.poke(0x1000, [0x48, 0x89, 0x03, 0x8b, 0x0b, 0x88, 0x43, 0x04, 0xcc]);
    m.setRip(0x1000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(log).toEqual(['w 0 f0000010 4 55667788', 'w 0 f0000014 4 aabbccdd', 'r 0 f0000010 4', 'w 0 f0000014 1 88']);
    expect(m.regs()[1]).toBe(0x11223344n);
  });

  it('raises a guest #UD for instructions it does not execute, and CPUID advertises none of them', async () => {
    const m = await bareCore(1 << 20);
    const cases = [
      [0xd9, 0x08], // D9 /1 with a memory operand: reserved in the x87 map
      [0xc5, 0xf9, 0xef, 0xc0], // vpxor %xmm0, %xmm0, %xmm0: AVX
      [0x0f, 0x38, 0xcf, 0xc0], // 0F38 CF (GF2P8MULB, not executed)
      [0x0f, 0x01, 0xd0], // xgetbv: no XSAVE
      [0x0f, 0x01, 0xd6], // xtest: no RTM
      [0xe4, 0x60], // inb $0x60, %al
      [0x0f, 0x0b], // ud2
      [0xf0, 0x48, 0x89, 0xc0], // lock movq %rax, %rax
    ];
    for (const code of cases) {
      m.poke(0x1000, code);
      m.regs()[0] = 0x2000n;
      m.setRip(0x1000n);
      expect(m.core.run(1)).toBe(STOP_EXCEPTION);
      expect(m.core.stopVector()).toBe(6);
      expect(m.rip()).toBe(0x1000n);
    }
    m.poke(0x1000, [0x0f, 0xa2, 0xcc]); // cpuid; int3
    m.regs()[0] = 1n;
    m.setRip(0x1000n);
    m.core.run(5);
    const ecx = Number(m.regs()[1]), edx = Number(m.regs()[2]);
    expect(edx & 1).toBe(1); // x87
    expect(edx & (1 << 24)).toBe(1 << 24); // FXSAVE/FXRSTOR
    expect(edx & (1 << 23)).toBe(1 << 23); // MMX
    expect((edx >>> 25) & 3).toBe(3); // SSE, SSE2
    expect(ecx & 1).toBe(1); // SSE3
    expect((ecx >>> 9) & 1).toBe(1); // SSSE3
    expect((ecx >>> 19) & 3).toBe(3); // SSE4.1, SSE4.2
    expect(ecx & (1 << 28)).toBe(0); // no AVX
    expect(ecx & ((1 << 26) | (1 << 27))).toBe(0); // no XSAVE, OSXSAVE
    expect(ecx & (1 << 3)).toBe(0); // no MONITOR
  });

  it('stops at the interrupt window the host asked for', async () => {
    const m = await bareCore(1 << 20);
    m.poke(0x1000, [0xfa, 0x90, 0xfb, 0x90, 0x90, 0xcc]); // cli; nop; sti; nop; nop; int3
    m.setRip(0x1000n);
    m.core.setFlagsValue(0x202);
    m.core.run(1); // cli
    m.core.requestInterruptWindow(1);
    expect(m.core.run(100)).toBe(4);
    expect(m.core.stopPcLo()).toBe(0x1004); // after sti's one-instruction shadow
  });
});

describe('host hooks the machine layer uses', () => {
  it('clearInterrupts drops a pending interrupt once the board line went low: it is never delivered', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    m.poke(0x7000, [0xfb, 0x90, 0x90, 0xcc]); // sti; nop; nop; int3
    m.poke(0x7200, [0xcc]); // the vector 0x20 handler: int3 (stops where delivery would land)
    m.core.setSegments(0x08, 0x10);
    m.regs()[4] = 0x8000n;
    m.setRip(0x7000n);
    m.core.raiseInterrupt(0x20);
    m.core.clearInterrupts();
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopPcLo()).toBe(0x7003);
    // without the clear it is delivered after the STI shadow
    m.setRip(0x7000n);
    m.core.raiseInterrupt(0x20);
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopPcLo()).toBe(0x7200);
  });

  it('requestStop from a device callback ends run() after the current instruction', async () => {
    let writes = 0;
    const m = await bareCore(1 << 20, 'debug', {
      mmioWrite: () => {
        writes++;
        m.core.requestStop();
      },
    });
    // movl %eax, (%rbx); nop; nop; int3 — rbx = the power-off register
    m.poke(0x100, [0x89, 0x03, 0x90, 0x90, 0xcc]);
    m.regs()[3] = 0xf000_4000n;
    m.setRip(0x100n);
    expect(m.core.run(100)).toBe(STOP_BUDGET);
    expect(writes).toBe(1);
    expect(m.rip()).toBe(0x102n);
    expect(m.core.retiredLo()).toBe(1);
    // a stop requested outside run() does not cut the next run short
    m.core.requestStop();
    expect(m.core.run(100)).toBe(STOP_EXCEPTION);
    expect(m.core.stopPcLo()).toBe(0x104);
  });

  it('setGdtr loads the GDT ltr reads the TSS descriptor from', async () => {
    const m = await bareCore(4 << 20);
    setupLongMode(m);
    const dv = new DataView(m.ram().buffer, m.ram().byteOffset);
    // GDT at 0x5800: null, code, data, then a 16-byte TSS descriptor at 0x18 with base 0x1234_5678_9abc
    dv.setBigUint64(0x5808, 0x00af_9a00_0000_ffffn, true);
    dv.setBigUint64(0x5810, 0x00cf_9200_0000_ffffn, true);
    // limit 0x67, base 15..0 = 0x9abc, base 23..16 = 0x78, type 0x89 (available 64-bit TSS, present), base 31..24 = 0x56
    dv.setBigUint64(0x5818, 0x0067n | (0x9abcn << 16n) | (0x78n << 32n) | (0x89n << 40n) | (0x56n << 56n), true);
    dv.setBigUint64(0x5820, 0x1234n, true);
    m.poke(0x7000, [0x66, 0xb8, 0x18, 0x00, 0x0f, 0x00, 0xd8, 0xcc]); // movw $0x18, %ax; ltr %ax; int3
    m.core.setSegments(0x08, 0x10);
    m.regs()[4] = 0x8000n;
    m.setRip(0x7000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(13); // no GDT yet: limit 0
    m.core.setGdtr(0x5800, 0, 0x27);
    m.setRip(0x7000n);
    expect(m.core.run(10)).toBe(STOP_EXCEPTION);
    expect(m.core.stopVector()).toBe(3);
  });
});
