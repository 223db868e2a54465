#!/usr/bin/env node
// npm run bench -w @wdtrace/session: the pid provider, per ISA.
// - one pid probe firing with `@ = count()`: the extra wall time of
//   `syscallheavy 2000` with every function entry of the program enabled,
//   over the firings, in ns and in guest instructions at the untraced run's
//   speed (for scale: a real DTrace pid probe costs about 1.35 µs); the
//   untraced run is a session too (a BEGIN clause), so only the probes
//   differ;
// - the time to make and to enable every probe of a program
//   (`pid$target:a.out::`, every instruction of every function, on the
//   running process) and how many probes that is;
// - the slowdown of a workload (`sort /etc/passwd`) with all of them
//   enabled, and its output compared with the untraced run's.
// Wall times on a shared machine are noise; compare ratios from one run.
import { defaultOptions } from '@wdtrace/dtrace-core';
import { Session } from '../dist/index.js';

const decoder = new TextDecoder();
const quiet = { options: { ...defaultOptions(), quiet: true } };

/** A session on a guest running `command`, its console output collected. */
async function session(isa, command) {
  const out = { text: '' };
  const s = await Session.create({
    guest: { isa, command },
    onEvent: (e) => {
      if (e.kind === 'console') out.text += decoder.decode(e.bytes);
    },
  });
  return { s, out };
}

/** Runs `command` to power-off with no probe of its own enabled (a BEGIN clause): wall time, instructions, output. */
const untraced = (isa, command) => traced(isa, command, 'BEGIN {}');

/** Runs `command` with `script`; wall time, instructions, output and the sum of the aggregation's counts. */
async function traced(isa, command, script) {
  const { s, out } = await session(isa, command);
  const program = s.compile(script);
  const t0 = performance.now();
  const result = await s.run(program, quiet);
  const ms = performance.now() - t0;
  const firings = result.aggregations.flatMap((a) => a.rows).reduce((n, row) => n + Number(row.value), 0);
  return { ms, insns: s.machine.instructions, out: out.text, firings };
}

/** Makes every probe of the running `command` (pid 2 once it has exec'd it; it must run a while), then enables and disables them all. */
async function enableAll(isa, command) {
  const { s } = await session(isa, command);
  const name = command[0].slice(command[0].lastIndexOf('/') + 1);
  const view = s.guest.view;
  for (let i = 0; view.processName(2) !== name; i++) {
    if (i > 10_000) throw new Error(`${isa}: ${command.join(' ')} never ran`);
    s.machine.run({ instructions: 10_000 });
  }
  const t0 = performance.now();
  const probes = s.probes('pid2:a.out::');
  const t1 = performance.now();
  const ops = s.registry.provider('pid2').ops;
  for (const p of probes) ops.enable(p.id, p.providerArg);
  const t2 = performance.now();
  for (const p of probes) ops.disable(p.id, p.providerArg);
  const t3 = performance.now();
  return { probes: probes.length, makeMs: t1 - t0, enableMs: t2 - t1, disableMs: t3 - t2 };
}

const f1 = (x) => x.toFixed(1);

for (const isa of ['x86_64', 'arm']) {
  console.log(`\n== ${isa}`);
  // Firing cost: every function entry of syscallheavy, counted.
  const cmd = ['/bin/syscallheavy', '2000'];
  const base = await untraced(isa, cmd);
  const fired = await traced(isa, cmd, 'pid$target:a.out::entry { @ = count(); }');
  if (fired.out !== base.out) throw new Error(`${isa}: ${cmd.join(' ')} printed differently when traced`);
  const nsPerInsn = (base.ms * 1e6) / base.insns;
  const perFiring = ((fired.ms - base.ms) * 1e6) / fired.firings;
  console.log(`${cmd.join(' ')}: ${base.insns} instructions in ${f1(base.ms)} ms untraced (${f1(base.insns / base.ms / 1000)} MIPS)`);
  console.log(`pid probe firing with count(): ${fired.firings} firings, ${f1(fired.ms)} ms traced -> ${f1(perFiring)} ns per firing = ${f1(perFiring / nsPerInsn)} guest instructions (real DTrace pid: ~1350 ns)`);

  // Every instruction of a program: how many probes, and how long making and enabling them takes.
  const all = await enableAll(isa, ['/bin/cpubound', '100']);
  console.log(`pid$target:a.out:: on cpubound: ${all.probes} probes, made in ${f1(all.makeMs)} ms, enabled in ${f1(all.enableMs)} ms, disabled in ${f1(all.disableMs)} ms`);

  // The slowdown of a workload with every one of them enabled.
  const sortCmd = ['/bin/sort', '/etc/passwd'];
  const sortBase = await untraced(isa, sortCmd);
  const sortAll = await traced(isa, sortCmd, 'pid$target:a.out:: { @ = count(); }');
  const same = sortAll.out === sortBase.out ? 'output unchanged' : 'OUTPUT DIFFERS';
  console.log(`sort /etc/passwd: ${f1(sortBase.ms)} ms untraced, ${f1(sortAll.ms)} ms with every instruction probed (${sortAll.firings} firings): x${f1(sortAll.ms / sortBase.ms)}, ${same}`);
}
