#!/usr/bin/env node
// Compares builds of the core in one process: node bench/compare.mjs A.wasm B.wasm ...
// Runs bench/workload.c on each build in turn (ROUNDS rounds, run() slices of
// SLICE), REPEAT times, and prints every build's median and best MIPS and its
// ratio to the first build's median. Interleaving the builds in one process
// keeps load changes on a shared machine from favouring one of them, and the
// time is the process's CPU time, not wall time, so waiting for a core while
// other programs run does not count.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuestImage, loadGuest } from './guest.mjs';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: compare.mjs build1.wasm [build2.wasm ...]');
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const REPEAT = Number(process.env.REPEAT ?? 8);
const SLICE = Number(process.env.SLICE ?? 10_000);
const image = buildGuestImage(mkdtempSync(join(tmpdir(), 'x86-compare-')));

const modules = files.map((f) => new WebAssembly.Module(readFileSync(f)));
const env = { abort() { throw new Error('abort'); }, mmioRead: () => -1, mmioWrite: () => {} };

function once(module) {
  const core = new WebAssembly.Instance(module, { env }).exports;
  const regs = loadGuest(core, image, ROUNDS);
  const c0 = process.cpuUsage();
  let stop;
  do stop = core.run(SLICE); while (stop === 0);
  const c1 = process.cpuUsage(c0);
  const s = (c1.user + c1.system) / 1e6;
  if (stop !== 1) throw new Error(`stopped with ${stop}`);
  const retired = core.retiredHi() * 2 ** 32 + (core.retiredLo() >>> 0);
  return { mips: retired / s / 1e6, retired, result: regs[0] };
}

const results = files.map(() => []);
let reference;
for (let r = 0; r < REPEAT; r++) {
  modules.forEach((m, i) => {
    const o = once(m);
    const key = `${o.retired}/${o.result}`;
    if (reference === undefined) reference = key;
    else if (key !== reference) throw new Error(`${files[i]}: ${key} differs from ${reference}`);
    results[i].push(o.mips);
  });
}
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const base = median(results[0]);
files.forEach((f, i) => {
  const m = median(results[i]);
  console.log(`${f}: median ${m.toFixed(1)} MIPS, best ${Math.max(...results[i]).toFixed(1)}, x${(m / base).toFixed(2)}`);
});
