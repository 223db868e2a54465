// Node helpers for the decode oracle: llvm-objdump (--triple=armv7a) run on
// raw A32 words, and the seeded word generator shared by the vector writer
// and the tests. Used by scripts and tests only (never by src/).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether llvm-objdump and llvm-objcopy are installed. */
export function haveLlvm() {
  try {
    execFileSync('llvm-objdump', ['--version'], { stdio: 'ignore' });
    execFileSync('llvm-objcopy', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** xorshift32 words from a seed: the same sequence in every run. */
export function randomWords(seed, count) {
  const out = new Uint32Array(count);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x;
  }
  return out;
}

/**
 * llvm-objdump's text for each word: 'mnemonic\toperands' without comments
 * and symbol annotations, or '<unknown>'.
 */
export function llvmDisassemble(words, baseAddress = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'a32-oracle-'));
  try {
    const bin = join(dir, 'w.bin');
    const obj = join(dir, 'w.o');
    writeFileSync(bin, Buffer.from(words.buffer, words.byteOffset, words.byteLength));
    execFileSync('llvm-objcopy', ['-I', 'binary', '-O', 'elf32-littlearm', bin, obj]);
    const args = ['-D', '-z', '-j', '.data', '--triple=armv7a', '--no-show-raw-insn', obj];
    if (baseAddress) args.push(`--adjust-vma=${baseAddress}`);
    const text = execFileSync('llvm-objdump', args, { maxBuffer: 1 << 30 }).toString();
    const out = new Array(words.length).fill('<unknown>');
    for (const line of text.split('\n')) {
      const m = /^\s*([0-9a-f]+):\s+(.*)$/.exec(line);
      if (!m) continue;
      const index = (parseInt(m[1], 16) - baseAddress) / 4;
      if (!(index >= 0 && index < words.length)) continue;
      out[index] = normalise(m[2]);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Drops llvm's '@' comments and '<symbol+off>' annotations; one tab after the mnemonic. */
export function normalise(text) {
  if (text.trim().startsWith('<unknown')) return '<unknown>';
  const t = text.replace(/\s*@.*$/, '').replace(/\s*<[^>]*>/g, '').trim();
  const m = /^(\S+)\s+(.*)$/.exec(t);
  return m ? `${m[1]}\t${m[2]}` : t;
}

/**
 * llvm-objdump --triple=thumbv7 on a stream of T32 code: one entry per
 * instruction it decodes, { address, size, text } (text normalised as
 * above), in order. llvm-objdump steps one byte past an undecodable 32-bit
 * instruction and then decodes misaligned garbage; a Thumb decoder steps a
 * halfword, so such an entry is given size 2 and decoding restarts at the
 * next halfword (--start-address, which counts from the unadjusted address).
 */
export function llvmDisassembleThumb(bytes, baseAddress = 0) {
  const dir = mkdtempSync(join(tmpdir(), 't32-oracle-'));
  try {
    const bin = join(dir, 'h.bin');
    const obj = join(dir, 'h.o');
    writeFileSync(bin, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    execFileSync('llvm-objcopy', ['-I', 'binary', '-O', 'elf32-littlearm', bin, obj]);
    const end = baseAddress + bytes.length;
    const out = [];
    let start = baseAddress;
    while (start < end) {
      // A window at a time keeps each restart cheap.
      const stop = Math.min(end, start + 4096);
      const args = ['-D', '-z', '-j', '.data', '--triple=thumbv7', '--no-show-raw-insn', `--adjust-vma=${baseAddress}`,
        `--start-address=${start - baseAddress}`, `--stop-address=${stop - baseAddress}`, obj];
      const text = execFileSync('llvm-objdump', args, { maxBuffer: 1 << 30 }).toString();
      const run = [];
      for (const line of text.split('\n')) {
        const m = /^\s*([0-9a-f]+):\s+(.*)$/.exec(line);
        if (!m) continue;
        const address = parseInt(m[1], 16);
        if (address >= start && address < stop) run.push({ address, size: 0, text: normalise(m[2]) });
      }
      run.forEach((e, i) => (e.size = (run[i + 1]?.address ?? stop) - e.address));
      const bad = run.findIndex((e) => e.size === 1);
      if (bad < 0) {
        // The window's last instruction may run past it: decode it again in the next window.
        const keep = stop < end && run.length > 1 ? run.length - 1 : run.length;
        out.push(...run.slice(0, keep));
        if (stop >= end) break;
        start = keep < run.length ? run[keep].address : stop;
        continue;
      }
      run[bad].size = 2;
      out.push(...run.slice(0, bad + 1));
      start = run[bad].address + 2;
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
