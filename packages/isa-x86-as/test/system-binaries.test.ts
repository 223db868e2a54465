// The decoder against llvm-objdump on real system binaries: the whole .text of
// the machine's libc and libstdc++ must split at exactly the same places, and
// mnemonics must agree on at least 99% of instructions. The oracle's result is
// recorded in test/vectors/*.oracle.json.gz (instruction lengths + mnemonics),
// so the check runs without llvm-objdump as long as the binary is the same
// one; with the oracle installed, a fresh comparison runs too.
// RECORD_VECTORS=1 rewrites the vectors from the oracle.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createX86Decoder } from '../src/index.js';
import { readExecutableSections } from './elf-text.js';
import { hasObjdump, objdumpText, sha256, walk, type OracleLine } from './objdump-oracle.js';

const BINARIES = [
  { name: 'libc', path: '/usr/lib/x86_64-linux-gnu/libc.so.6' },
  { name: 'libstdc++', path: '/usr/lib/x86_64-linux-gnu/libstdc++.so.6' },
];
const vectorPath = (name: string) => new URL(`./vectors/${name}.oracle.json.gz`, import.meta.url);

interface OracleVector { textSha256: string; address: string; lengths: string; vocabulary: string[]; mnemonics: string }

function encodeOracle(text: { address: bigint; bytes: Uint8Array }, lines: OracleLine[]): OracleVector {
  const lengths = new Uint8Array(lines.length);
  const vocabulary: string[] = [];
  const vocabIndex = new Map<string, number>();
  const mn = new Uint16Array(lines.length);
  lines.forEach((l, i) => {
    const next = i + 1 < lines.length ? lines[i + 1]!.address : text.address + BigInt(text.bytes.length);
    lengths[i] = Number(next - l.address);
    if (!vocabIndex.has(l.mnemonic)) { vocabIndex.set(l.mnemonic, vocabulary.length); vocabulary.push(l.mnemonic); }
    mn[i] = vocabIndex.get(l.mnemonic)!;
  });
  return { textSha256: sha256(text.bytes), address: text.address.toString(16), lengths: Buffer.from(lengths).toString('base64'), vocabulary, mnemonics: Buffer.from(mn.buffer).toString('base64') };
}

function decodeOracle(v: OracleVector): OracleLine[] {
  const lengths = Buffer.from(v.lengths, 'base64');
  const mnb = Buffer.from(v.mnemonics, 'base64');
  const mn = new Uint16Array(mnb.buffer.slice(mnb.byteOffset, mnb.byteOffset + mnb.byteLength));
  let a = BigInt('0x' + v.address);
  const out: OracleLine[] = [];
  for (let i = 0; i < lengths.length; i++) { out.push({ address: a, mnemonic: v.vocabulary[mn[i]!]! }); a += BigInt(lengths[i]!); }
  return out;
}

async function compare(text: { address: bigint; bytes: Uint8Array }, oracle: OracleLine[]) {
  const dec = await createX86Decoder('release');
  const ours = walk(dec, text.bytes, text.address);
  const mine = new Map(ours.addresses.map((a, i) => [a, ours.mnemonics[i]!]));
  let boundaryMisses = 0;
  let mnemonicMisses = 0;
  const examples: string[] = [];
  for (const r of oracle) {
    const m = mine.get(r.address);
    if (m === undefined) { boundaryMisses++; if (examples.length < 5) examples.push(`boundary ${r.address.toString(16)} ${r.mnemonic}`); }
    else if (m !== r.mnemonic) { mnemonicMisses++; if (examples.length < 5) examples.push(`${r.address.toString(16)}: ${r.mnemonic} vs ${m}`); }
  }
  return { ours: ours.addresses.length, oracle: oracle.length, boundaryMisses, mnemonicMisses, agreement: 1 - mnemonicMisses / oracle.length, examples };
}

describe.each(BINARIES)('decoder vs llvm-objdump on $name .text', ({ name, path }) => {
  const present = existsSync(path);
  const text = present ? readExecutableSections(path).find((s) => s.name === '.text') : undefined;

  it.runIf(present && hasObjdump() && process.env['RECORD_VECTORS'] === '1')('records the oracle vector', () => {
    const v = encodeOracle(text!, objdumpText(path));
    writeFileSync(vectorPath(name), gzipSync(JSON.stringify(v), { level: 9 }));
  });

  it.runIf(present && existsSync(vectorPath(name)))('matches the recorded oracle (same binary)', async (ctx) => {
    const v = JSON.parse(gunzipSync(readFileSync(vectorPath(name))).toString()) as OracleVector;
    if (v.textSha256 !== sha256(text!.bytes)) ctx.skip();
    const r = await compare(text!, decodeOracle(v));
    expect(r.examples.filter((e) => e.startsWith('boundary'))).toEqual([]);
    expect(r.boundaryMisses).toBe(0);
    expect(r.ours).toBe(r.oracle);
    expect(r.agreement).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it.runIf(present && hasObjdump())('matches a fresh llvm-objdump run', async () => {
    const r = await compare(text!, objdumpText(path));
    expect(r.boundaryMisses).toBe(0);
    expect(r.ours).toBe(r.oracle);
    expect(r.agreement).toBeGreaterThanOrEqual(0.99);
    console.log(`${name}: ${r.oracle} instructions, boundaries identical, mnemonics agree on ${(r.agreement * 100).toFixed(3)}%`, r.examples);
  }, 180_000);
});
