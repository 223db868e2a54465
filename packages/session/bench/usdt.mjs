#!/usr/bin/env node
// npm run bench -w @wdtrace/session (after pid.mjs): the usdt provider, per
// ISA — the cost of one usdt probe firing with `@ = count()`: the extra
// wall time of bench/usdt/loop (20000 iterations, one `loop:::iter` site
// each, linked after `wdtrace -G`) with the probe enabled, over the
// firings, in ns and in guest instructions at the untraced run's speed.
// The untraced run is a session too (a BEGIN clause), so only the probe
// differs, and its output must not change. Then "enable everything": every
// usdt probe of the guest's key-value server (`kv$target:::`, kvd -n 3000:
// request-start, request-done, table-grow) counted, against the same
// command untraced — the slowdown of a program with all its USDT probes
// enabled. Compare ratios from one run.
import { readFileSync } from 'node:fs';
import { defaultOptions } from '@wdtrace/dtrace-core';
import { Session } from '../dist/index.js';

const decoder = new TextDecoder();
const quiet = { options: { ...defaultOptions(), quiet: true } };

/** Runs the loop program on `isa` with `script`; wall time, instructions, output, the aggregation's total. */
async function run(isa, script) {
  const data = new Uint8Array(readFileSync(new URL(`./usdt/loop-${isa}`, import.meta.url)));
  return runCommand(isa, ['/host/loop'], script, [{ path: '/host/loop', data, mode: 0o755 }]);
}

/** Runs a guest command on `isa` with `script`; wall time, instructions, output, the aggregations' total. */
async function runCommand(isa, command, script, files = []) {
  let out = '';
  const s = await Session.create({
    guest: { isa, command, files },
    onEvent: (e) => {
      if (e.kind === 'console') out += decoder.decode(e.bytes);
    },
  });
  const program = s.compile(script);
  const t0 = performance.now();
  const result = await s.run(program, quiet);
  const ms = performance.now() - t0;
  const firings = result.aggregations.flatMap((a) => a.rows).reduce((n, row) => n + Number(row.value), 0);
  return { ms, insns: s.machine.instructions, out, firings };
}

const f1 = (x) => x.toFixed(1);

for (const isa of ['x86_64', 'arm']) {
  console.log(`\n== ${isa}`);
  await run(isa, 'BEGIN {}'); // warm-up: the ISA core's first run compiles it
  const base = await run(isa, 'BEGIN {}');
  const fired = await run(isa, 'loop$target:::iter { @ = count(); }');
  if (fired.out !== base.out) throw new Error(`${isa}: the loop printed differently when traced`);
  const nsPerInsn = (base.ms * 1e6) / base.insns;
  const perFiring = ((fired.ms - base.ms) * 1e6) / fired.firings;
  console.log(`loop: ${base.insns} instructions in ${f1(base.ms)} ms untraced (${f1(base.insns / base.ms / 1000)} MIPS)`);
  console.log(`usdt probe firing with count(): ${fired.firings} firings, ${f1(fired.ms)} ms traced -> ${f1(perFiring)} ns per firing = ${f1(perFiring / nsPerInsn)} guest instructions (real DTrace pid/usdt: ~1350 ns)`);
}

// Enable everything: all of a program's usdt probes, its slowdown.
const KVD = ['/bin/kvd', '-n', '3000'];
for (const isa of ['x86_64', 'arm']) {
  console.log(`\n== ${isa}: every usdt probe of kvd -n 3000`);
  await runCommand(isa, KVD, 'BEGIN {}');
  const base = await runCommand(isa, KVD, 'BEGIN {}');
  const all = await runCommand(isa, KVD, 'kv$target::: { @[probename] = count(); }');
  if (all.out !== base.out) throw new Error(`${isa}: kvd printed differently when traced`);
  console.log(`kvd: ${base.insns} instructions in ${f1(base.ms)} ms untraced; every probe enabled: ${all.firings} firings, ${all.insns} instructions in ${f1(all.ms)} ms -> slowdown x${(all.ms / base.ms).toFixed(2)}, ${f1(((all.ms - base.ms) * 1e6) / all.firings)} ns per firing`);
}
