// The ARM guest's code never holds the DTrace breakpoint word (UDF
// 0xE7F000F0-0xE7F000FF, the low nibble a condition): every such trap the
// machine sees is one tracing wrote, and an unreachable-code `udf` is not
// skipped as a breakpoint whose condition failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PF_X, PT_LOAD, SHF_EXECINSTR, parseElf } from '../src/index.js';
import { IMAGES_DIR, readCpio } from './guest-support.js';

const isBreakpoint = (w: number): boolean => (w & ~0xf) >>> 0 === 0xe7f000f0;

function breakpointWords(bytes: Uint8Array, base: bigint): string[] {
  const found: string[] = [];
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    const w = v.getUint32(i, true);
    if (isBreakpoint(w)) found.push(`0x${(base + BigInt(i)).toString(16)}: 0x${w.toString(16)}`);
  }
  return found;
}

describe('ARM guest images: no DTrace breakpoint words in code', () => {
  it('the kernel and the hello module', () => {
    for (const file of ['kernel.elf', 'modules/hello.ko']) {
      const elf = parseElf(new Uint8Array(readFileSync(join(IMAGES_DIR, 'arm', file))));
      const code = elf.sections.filter((s) => s.flags & SHF_EXECINSTR);
      expect(code.length, file).toBeGreaterThan(0);
      for (const s of code) expect(breakpointWords(elf.sectionData(s), s.addr), `${file} ${s.name}`).toEqual([]);
    }
  });

  it('every program of the initrd', () => {
    const programs = readCpio(readFileSync(join(IMAGES_DIR, 'arm', 'initrd.cpio'))).filter((e) => e.data.subarray(0, 4).toString('latin1') === '\x7fELF');
    expect(programs.length).toBeGreaterThanOrEqual(16);
    for (const p of programs) {
      const elf = parseElf(new Uint8Array(p.data));
      for (const ph of elf.programHeaders.filter((h) => h.type === PT_LOAD && h.flags & PF_X)) {
        expect(breakpointWords(elf.segmentData(ph), ph.vaddr), p.name).toEqual([]);
      }
    }
  });
});
