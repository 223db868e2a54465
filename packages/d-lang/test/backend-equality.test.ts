// -x backend=dif and -x backend=wasm give the same results: every program of
// the corpus (and a few written to fault, drop and speculate, and to run
// through probes' trampolines) runs on an idle machine both ways; the
// principal buffers' records, the aggregations (snapshot after each round of
// firings), the drops, the instruction counts and dtrace(1)'s output must be
// equal byte for byte.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Consumer, DTraceState, IdleMachine, defaultOptions, regionBytesInUse, setOption, type CompiledProgram } from '@wdtrace/dtrace-core';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';
import { corpusOptions, corpusRegistry } from './corpus-support.js';

const dir = join(import.meta.dirname, 'corpus');
const corpus = readdirSync(dir)
  .filter((f) => f.startsWith('tst.') && f.endsWith('.d'))
  .sort()
  .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') }));

/** Programs that fault, drop and speculate, so that ERROR and drop accounting are compared too. */
const written = [
  { name: 'faults', text: 'BEGIN { x = 0; } syscall::read:entry { trace(10 / x); } syscall::read:entry { trace(*(int *)arg1); } syscall::read:entry { trace(args[11]); } syscall::open:entry { trace(stringof(arg0)); } ERROR { @e[arg4, arg3] = count(); }' },
  { name: 'drops', text: '#pragma D option bufsize=96\n#pragma D option bufpolicy=fill\nsyscall:::entry { trace(timestamp); trace(probefunc); }' },
  { name: 'dynvar drops', text: '#pragma D option dynvarsize=64\nsyscall:::entry { a[arg0, probefunc] = timestamp; self->x[arg2] = arg1; } END { trace(a[3, "read"]); }' },
  { name: 'speculation', text: '#pragma D option nspec=1\nsyscall::read:entry { self->s = speculation(); speculate(self->s); printf("%d %s", arg0, probefunc); } syscall::read:entry /arg0 == 3/ { commit(self->s); } syscall::read:entry /arg0 != 3/ { discard(self->s); }' },
  { name: 'branches', text: 'syscall:::entry /arg0 > 2 && (arg2 & 0x10) == 0 || arg0 == -1/ { @[probefunc, arg0 < 0 ? "neg" : arg0 % 3 == 0 ? "three" : "other"] = sum(arg2 >> 2); @q = quantize(arg2 * 1000 - arg0); @l = lquantize((int)arg0, -5, 20, 3); }' },
  // A probe's trampoline: predicates it calls without JavaScript, faulting ones, the activity between clauses, clause-locals across clauses.
  { name: 'exit in the middle clause', text: 'syscall::read:entry { trace(1); } syscall::read:entry /arg0 == 7/ { exit(3); } syscall::read:entry { trace(arg0); } syscall::read:entry /arg0 != 7/ { trace(2); }' },
  { name: 'predicate faults in clause 2 of 3', text: 'BEGIN { x = 0; } syscall:::entry /arg0 != 3/ { trace(arg0); } syscall:::entry /arg2 % x == 1/ { trace(1); } syscall:::entry /arg0 != 7 && *(int *)arg1 == 4/ { trace(2); } syscall:::entry /arg2 > 1/ { @[probefunc] = sum(arg2); } ERROR /arg3 != 0/ { @e[arg1, arg2, arg3, arg4] = count(); }' },
  { name: 'predicates that call out', text: 'syscall:::entry /probefunc == "read" && strlen(probename) == 5/ { trace(probefunc); } syscall:::entry /execname != "x" || arg0 == 3/ { @[execname, arg0] = count(); } syscall:::entry /epid != 0 && cpu == 1 && id != 0 && timestamp >= 0/ { trace(epid); trace(cpu); }' },
  { name: 'clause-locals across clauses', text: 'syscall:::entry { this->a = arg0 * 2; this->s = probefunc; } syscall:::entry /this->a > 10/ { trace(this->a); trace(this->s); } syscall:::entry /this->s == "open"/ { this->a = 0; } syscall:::entry /this->a == 0/ { trace(probename); }' },
  { name: 'speculation under predicates', text: '#pragma D option nspec=2\nsyscall:::entry /arg0 != 7/ { self->s = speculation(); } syscall:::entry /self->s/ { speculate(self->s); trace(arg0); } syscall:::entry /self->s && arg2 > 60/ { commit(self->s); self->s = 0; } syscall:::entry /self->s/ { discard(self->s); self->s = 0; }' },
  { name: 'fill buffer under predicates', text: '#pragma D option bufsize=160\n#pragma D option bufpolicy=fill\nsyscall:::entry /arg0 != 7/ { trace(timestamp); } syscall:::entry /arg2 > 0/ { trace(arg2); } END { trace(1); }' },
  { name: 'ring buffer under predicates', text: '#pragma D option bufsize=128\n#pragma D option bufpolicy=ring\nsyscall:::entry /arg0 != 7/ { trace(arg0); } syscall:::entry /arg2 > 0/ { trace(arg2); }' },
  { name: 'aggregating functions under predicates', text: 'syscall:::entry /arg0 != 0/ { @c = count(); @s[probefunc] = sum(arg2); @mi[probefunc] = min(arg0); @ma = max(arg0); @av[probename] = avg(arg2); @sd = stddev(arg2); } syscall:::entry /arg2 > 100/ { @c2[probefunc] = count(); }' },
  { name: 'aggregations a trampoline updates', text: 'syscall:::entry { @c = count(); } syscall:::entry { @s[probefunc] = sum(arg2); } syscall:::entry { @mi[probename, 3] = min((int)arg0); } syscall:::entry { @ma = max(arg0 - arg2); } syscall:::entry { @av["k"] = avg(arg2 * 3); } syscall:::entry /arg2 != 4096/ { @z = sum(10 / (arg0 - 3)); } syscall:::entry { @n = count(); @m = count(); } ERROR { @e[arg2, arg3, arg4] = count(); }' },
  { name: 'records a trampoline writes', text: 'syscall:::entry { trace(arg0); trace((int)arg2); trace((char)arg1); trace((short)arg2); trace(timestamp); } syscall:::entry /arg0 != 7/ { trace(10 / (arg0 - 3)); trace(epid); trace(cpu); } syscall:::entry { printf("%d %x %d\\n", arg0, arg2, (int)arg1); } syscall::read:entry { trace(id); } ERROR { trace(arg2); trace(arg3); }' },
  { name: 'a probe with more ECBs than a trampoline module may hold', text: Array.from({ length: 160 }, (_, i) => `syscall::read:entry /arg0 != ${i}/ { @c${i % 5} = count(); }`).join('\n') },
  // The principal buffers in the shared memory: records a trampoline places itself and those the policies place, drop or evict.
  { name: 'switch buffer with drops', text: '#pragma D option bufsize=100\nsyscall:::entry { trace(arg0); trace((int)arg2); } syscall:::entry /arg0 == 7/ { trace(timestamp); trace(probefunc); } syscall:::entry { trace((char)arg1); }' },
  { name: 'fill buffer with the END reserve', text: '#pragma D option bufsize=180\n#pragma D option bufpolicy=fill\nsyscall:::entry { trace(arg0); trace(arg2); } syscall::read:entry { printf("%s", probefunc); } END { trace(1); trace(2); trace(3); } END { trace(timestamp); }' },
  { name: 'ring buffer that wraps, with errors', text: '#pragma D option bufsize=150\n#pragma D option bufpolicy=ring\nsyscall:::entry { trace(arg0); } syscall:::entry { trace(10 / (arg0 - 3)); trace(arg2); } syscall:::entry { trace((char)arg1); trace((short)arg2); trace(arg0); } syscall::open:entry { trace(stringof(arg0)); }' },
  { name: 'ERROR in the middle of records', text: 'syscall:::entry { trace(arg0); trace(*(int *)arg1); trace(arg2); } syscall:::entry { trace((int)arg2); trace(10 / (arg0 - 3)); trace(arg1); } syscall:::entry { trace(arg1); trace(probefunc); trace(*(char *)arg0); } ERROR { trace(arg3); }' },
  { name: 'speculations committed into a small buffer', text: '#pragma D option nspec=2\n#pragma D option bufsize=120\n#pragma D option specsize=64\nsyscall:::entry { self->s = speculation(); } syscall:::entry /self->s/ { speculate(self->s); trace(arg0); trace(arg2); } syscall:::entry /self->s/ { speculate(self->s); trace(probefunc); } syscall:::entry /self->s && arg0 != 7/ { commit(self->s); self->s = 0; } syscall:::entry /self->s/ { discard(self->s); self->s = 0; }' },
  { name: 'strings', text: 'syscall:::entry { this->s = strjoin(probefunc, "!"); printf("%s %d %s %s\\n", this->s, strlen(this->s), substr(this->s, 1, 3), this->s == "read!" ? "yes" : "no"); }' },
];

const bytesHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

const ARGS: bigint[][] = [
  [3n, 0x1000n, 64n],
  [0xffffffffffffffffn, 0n, 0x31n],
  [7n, 0xdeadbeefn, 4096n],
];

interface Run {
  readonly records: string;
  readonly output: string;
  readonly translated: number;
}

/** Runs `program` with `backend`: BEGIN, each other probe with each ARGS, END. */
function run(program: CompiledProgram, backend: 'dif' | 'wasm', consume: boolean): Run {
  const reg = corpusRegistry();
  const options = defaultOptions();
  setOption(options, 'zdefs', null);
  for (const o of program.options) setOption(options, o.name, o.value);
  setOption(options, 'backend', backend);
  const state = new DTraceState(program, reg, new IdleMachine(2), options);
  let output = '';
  const consumer = consume ? new Consumer(state, { out: (s) => (output += s), err: (s) => (output += '<err>' + s) }) : undefined;
  const fire = (provider: string, name: string) => (cpu: number) => state.probe(reg.lookup(provider, '', '', name)!.id, cpu, []);
  state.go(0, fire('dtrace', 'BEGIN'));
  const probes = reg.match({ provider: '', module: '', function: '', name: '' }).filter((p) => p.provider !== 'dtrace');
  let records = '';
  const takeAggregations = (): void => {
    for (const [id, entries] of state.takeAggregations()) {
      for (const [key, entry] of entries) records += `agg ${id} ${JSON.stringify(key)} ${JSON.stringify(entry, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? bytesHex(v) : v))}\n`;
    }
  };
  for (const args of ARGS) {
    for (const p of probes) for (const cpu of [0, 1, 0]) state.probe(p.id, cpu, args);
    // An aggregation snapshot after each round: entries start afresh (and trampolines' aggregations are disarmed and armed again).
    if (consume) consumer!.snapAggregations();
    else takeAggregations();
  }
  consumer?.consume(false);
  state.stop(0, fire('dtrace', 'END'));
  consumer?.consume(true);
  if (!consume) {
    for (const cpu of [0, 1]) {
      const s = state.snapshot(cpu, true);
      records += `cpu ${cpu} drops ${s.drops}\n`;
      for (const e of s.entries) records += e.kind === 'data' ? `data ${e.epid} ${bytesHex(e.bytes)}\n` : `error ${e.epid} ${e.action} ${e.offset} ${e.fault} ${e.address}\n`;
    }
    takeAggregations();
    records += `agg drops ${state.takeAggregationDrops().join(' ')}\n`;
  }
  records += `drops ${JSON.stringify(state.drops)} exit ${state.exitStatus} instructions ${state.instructions}\n`;
  const translated = state.enabled.reduce((n, ep) => n + [ep.predicate, ...ep.actions].filter((d) => d?.compiled !== undefined).length, 0);
  return { records, output, translated };
}

describe('backend=dif and backend=wasm give equal results', () => {
  let translated = 0;
  for (const { name, text } of [...corpus, ...written]) {
    it(name, () => {
      const r = compile(text, corpusOptions(name, text));
      expect(r.program, name).toBeDefined();
      const program = r.program!;
      for (const consume of [false, true]) {
        const dif = run(program, 'dif', consume);
        const wasm = run(program, 'wasm', consume);
        expect(dif.translated).toBe(0);
        expect(wasm.records).toBe(dif.records);
        expect(wasm.output).toBe(dif.output);
        translated += consume ? 0 : wasm.translated;
      }
    });
  }
  it('passes ERROR a fault outside DIF as offset 0xffffffffffffffff, one key with -1 (both backends)', () => {
    const text = 'syscall::read:entry { trace(stringof(arg0)); } ERROR { @[arg3] = count(); @[-1] = count(); }';
    const program = compile(text, corpusOptions('error-offset', text)).program!;
    for (const backend of ['dif', 'wasm'] as const) {
      const keys = run(program, backend, false).records.split('\n').filter((l) => l.startsWith('agg 1 '));
      // One entry in each round's snapshot.
      expect(keys).toHaveLength(ARGS.length);
      for (const k of keys) expect(k).toMatch(/^agg 1 "iffffffffffffffff" /);
    }
  });
  it('runs a probe fired from a call-out of a predicate a trampoline runs, and the rest of the outer firing, as the interpreter does', () => {
    const text = 'syscall::read:entry /execname != "x" && arg0 == 3/ { trace(arg0); trace(arg2); } syscall::read:entry /arg1 == 0x1000/ { trace(arg1); } syscall::open:entry /arg0 == 9/ { trace(arg1); trace(execname); }';
    const program = compile(text, corpusOptions('nested', text)).program!;
    const outputs = (['dif', 'wasm'] as const).map((backend) => {
      const reg = corpusRegistry();
      const options = defaultOptions();
      setOption(options, 'backend', backend);
      let nest = 0;
      let state: DTraceState | undefined;
      const open = reg.lookup('syscall', '', 'open', 'entry')!.id;
      // A machine whose thread lookup fires syscall::open:entry once, from inside the first read:entry predicate's execname.
      const machine = new (class extends IdleMachine {
        override thread(): ReturnType<IdleMachine['thread']> {
          if (nest++ === 0) state!.probe(open, 0, [9n, 8n]);
          return super.thread();
        }
      })(1);
      state = new DTraceState(program, reg, machine, options);
      state.go(0, () => {});
      state.probe(reg.lookup('syscall', '', 'read', 'entry')!.id, 0, [3n, 0x1000n, 64n]);
      return state.snapshot(0, true).entries.map((e) => (e.kind === 'data' ? `${e.epid} ${bytesHex(e.bytes)}` : `error ${e.epid}`));
    });
    // The nested firing's record first (arg1 8, execname), then the outer firing's: its arguments, not the nested one's.
    expect(outputs[0]!.map((r) => r.slice(0, 2))).toEqual(['3 ', '1 ', '2 ']);
    expect(outputs[0]![0]).toContain('0800000000000000');
    expect(outputs[0]![1]).toContain('03000000000000004000000000000000');
    expect(outputs[0]![2]).toContain('0010000000000000');
    expect(outputs[1]).toEqual(outputs[0]);
  });
  it('frees the principal buffers when tracing stops; their records are read after it (both backends)', () => {
    const text = '#pragma D option bufsize=2m\nsyscall:::entry { trace(arg0); trace(arg2); } syscall::read:entry { trace(probefunc); }';
    const program = compile(text, corpusOptions('freed', text)).program!;
    const records = (['dif', 'wasm'] as const).map((backend) => {
      const before = regionBytesInUse();
      const reg = corpusRegistry();
      const options = defaultOptions();
      for (const o of program.options) setOption(options, o.name, o.value);
      setOption(options, 'backend', backend);
      const state = new DTraceState(program, reg, new IdleMachine(2), options);
      state.go(0);
      expect(regionBytesInUse()).toBeGreaterThan(before);
      // Enough records that each CPU's region grows past its first size.
      for (let i = 0; i < 2000; i++) for (const cpu of [0, 1]) state.probe(reg.lookup('syscall', '', 'read', 'entry')!.id, cpu, [BigInt(i), 0n, BigInt(cpu)]);
      state.stop(0);
      expect(regionBytesInUse()).toBe(before);
      return [0, 1].map((cpu) => {
        const s = state.snapshot(cpu, true);
        return { drops: s.drops, entries: s.entries.length, bytes: s.entries.map((e) => (e.kind === 'data' ? bytesHex(e.bytes) : 'error')).join(',') };
      });
    });
    for (const r of records[0]!) expect([r.drops, r.entries]).toEqual([0, 4000]);
    expect(records[1]).toEqual(records[0]);
  });
  it('translated the DIF of the programs above', () => {
    expect(translated).toBeGreaterThan(200);
  });
});
