// Test helper: runs llvm-objdump (the external oracle) on a file's .text and
// returns instruction addresses and mnemonics, and walks the same bytes with
// our decoder. Used by the libc boundary test and scripts/record-libc.mjs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { X86Decoder } from '../src/index.js';

export interface OracleLine { address: bigint; mnemonic: string }

export function hasObjdump(): boolean {
  try { execFileSync('llvm-objdump', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

export function objdumpText(path: string): OracleLine[] {
  const out = execFileSync('llvm-objdump', ['-d', '--no-show-raw-insn', '-j', '.text', path], { maxBuffer: 1 << 30 }).toString();
  const lines: OracleLine[] = [];
  for (const l of out.split('\n')) {
    const m = /^\s*([0-9a-f]+):\s*\t(.*)$/.exec(l);
    if (!m) continue;
    const parts = m[2]!.split('\t').filter((x) => x !== '');
    let mn = parts[0] ?? '';
    if ((mn === 'lock' || mn === 'rep' || mn === 'repne') && parts[1]) mn = `${mn} ${parts[1]}`;
    // llvm-objdump prints a LOCK prefix as a line of its own; the prefix belongs
    // to the next instruction, which is how the CPU and our decoder see it.
    const prev = lines[lines.length - 1];
    if (prev && prev.mnemonic === 'lock') { prev.mnemonic = `lock ${mn.trim()}`; continue; }
    lines.push({ address: BigInt('0x' + m[1]), mnemonic: mn.trim() });
  }
  return lines;
}

export interface Walk { addresses: bigint[]; mnemonics: string[] }

/** Walks `bytes` linearly with our decoder; undecodable bytes advance by one like objdump's `(bad)`. */
export function walk(dec: X86Decoder, bytes: Uint8Array, base: bigint): Walk {
  const addresses: bigint[] = [];
  const mnemonics: string[] = [];
  let off = 0;
  while (off < bytes.length) {
    const d = dec.describe(bytes, off, base + BigInt(off));
    addresses.push(base + BigInt(off));
    mnemonics.push(d ? d.mnemonic : '(bad)');
    off += d ? d.length : 1;
  }
  return { addresses, mnemonics };
}

export function boundaryDigest(addresses: bigint[]): string {
  const h = createHash('sha256');
  for (const a of addresses) h.update(a.toString(16) + '\n');
  return h.digest('hex');
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
