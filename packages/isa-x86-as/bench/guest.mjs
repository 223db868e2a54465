// The bench guest, shared by run.mjs and compare.mjs: bench/workload.c built
// freestanding into a flat image at 0x100000, and a bare core set up to run
// it in long mode with the first 16 MiB identity-mapped by 2 MiB pages.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const cflags = ['-O2', '-fno-pic', '-fno-stack-protector', '-fcf-protection=none', '-mno-sse', '-mno-red-zone', '-fno-builtin'];
const RAM = 16 << 20;

/** Builds the guest image in `dir`; returns its bytes. */
export function buildGuestImage(dir) {
  execFileSync('clang', ['-c', ...cflags, '-ffreestanding', '-o', join(dir, 'w.o'), join(here, 'workload.c')]);
  execFileSync('clang', ['-c', '-o', join(dir, 'e.o'), join(here, 'guest-entry.s')]);
  execFileSync('ld.lld', ['-static', '-nostdlib', '-e', '_start', '-Ttext=0x100000', '-Tbss=0x400000', '--oformat=binary', '-o', join(dir, 'guest.bin'), join(dir, 'e.o'), join(dir, 'w.o')]);
  return readFileSync(join(dir, 'guest.bin'));
}

/** Loads `image` into `core` (its exports) and points it at the entry with `rounds` in %rdi; returns the register view. */
export function loadGuest(core, image, rounds) {
  core.initRam(RAM);
  const ram = new Uint8Array(core.memory.buffer, core.ramOffset(), RAM);
  const dv = new DataView(core.memory.buffer, core.ramOffset(), RAM);
  // identity map the first 16 MiB with 2 MiB pages: PML4 0x1000, PDPT 0x2000, PD 0x3000
  dv.setBigUint64(0x1000, 0x2003n, true);
  dv.setBigUint64(0x2000, 0x3003n, true);
  for (let i = 0; i < 8; i++) dv.setBigUint64(0x3000 + i * 8, BigInt(i) * 0x200000n | 0x83n, true);
  ram.set(image, 0x100000);
  core.setControlRegister(3, 0x1000, 0);
  core.setControlRegister(4, 0x20, 0);
  core.writeMsr(0xc0000080, 0x500, 0);
  core.setControlRegister(0, 0x80000001, 0);
  core.setSegments(0x08, 0x10);
  const regs = new BigUint64Array(core.memory.buffer, core.regsOffset(), 16);
  regs[7] = BigInt(rounds); // %rdi
  core.setRipParts(0x100000, 0);
  return regs;
}
