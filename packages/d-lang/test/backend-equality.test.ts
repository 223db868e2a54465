// -x backend=dif and -x backend=wasm give the same results: every program of
// the corpus (and a few written to fault, drop and speculate, and to run
// through probes' trampolines) runs on an idle machine both ways; the
// principal buffers' records, the aggregations (snapshot after each round of
// firings), the drops, the instruction counts and dtrace(1)'s output must be
// equal byte for byte.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Consumer, DTraceState, IdleMachine, defaultOptions, regionBytesInUse, setOption, type CompiledProgram } from '@wdtrace/dtrace-core';
import { describe, expect, it, vi } from 'vitest';
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
  // Keyed aggregations a trampoline finds in its table by integer keys (aggtable.ts): keys of each width and sign, many keys, wrapping sums, faults in keys and values.
  { name: 'keyed aggregations a trampoline finds', text: 'syscall:::entry { @c[arg0] = count(); } syscall:::entry { @s[arg0, arg1] = sum(arg2); } syscall:::entry { @w[arg2] = sum(arg0 * 0x7fffffffffffffff); } syscall:::entry { @mi[(char)arg0, (short)arg2] = min(-(long)arg2); } syscall:::entry { @ma[(int)arg1] = max(arg0 - arg2); } syscall:::entry { @av[arg2 & 3, (unsigned char)arg1, (uint16_t)arg0] = avg((int)arg0 - 5); } syscall:::entry /arg2 != 4096/ { @z[arg0] = sum(10 / (arg0 - 3)); } syscall:::entry { @f[10 / (arg2 - 64)] = count(); } syscall:::entry { @t[timestamp] = count(); } syscall:::entry { @t2[timestamp / 3, arg0] = sum(arg2); } syscall:::entry { @n[arg0] = count(); @m[arg2] = count(); } ERROR { @e[arg2, arg3, arg4] = count(); }' },
  { name: 'keyed histograms a trampoline finds', text: 'syscall:::entry { @q[arg0] = quantize(arg2 * 1000 - arg0); } syscall:::entry { @q2[arg0, arg2] = quantize((long)(arg0 << 63), arg2); } syscall:::entry { @q3[(short)arg2] = quantize(-(long)arg2, -3); } syscall:::entry { @l[arg1 & 0xff] = lquantize((int)arg0, -5, 20, 3); } syscall:::entry { @l2[arg2] = lquantize(arg0, 0, 100, 10, arg1); } syscall:::entry { @ll[arg0] = llquantize(arg2, 10, 0, 6, 20); } syscall:::entry { @z[arg0] = quantize(arg2, 10 / (arg0 - 3)); }' },
  { name: 'keyed stddev a trampoline finds', text: 'syscall:::entry { @sd[arg0] = stddev(arg2); } syscall:::entry { @sd2[arg0, arg1] = stddev((long)arg0 * 0x7fffffff); } syscall:::entry { @sd3[arg2 & 1] = stddev((long)(arg0 << 63)); } syscall:::entry { @sd4[arg2] = stddev(10 / (arg0 - 3)); } syscall:::entry { @sd5[arg1] = stddev(-(long)arg2 * 0x100000000); } END { printa(@sd); printa(@sd3); printa(@sd5); }' },
  // Histograms and stddev() by no key or the probe's own keys, in cells as long as their data that the trampoline updates.
  { name: 'histograms and stddev by no key or the probe\'s own keys', text: 'syscall:::entry { @q = quantize(arg2 * 1000 - arg0); } syscall:::entry { @qp[probefunc] = quantize((long)(arg0 << 63), arg2); } syscall:::entry { @l[probefunc, probename] = lquantize((int)arg0, -5, 20, 3); } syscall:::entry { @l2 = lquantize(arg0, 0, 100, 10, arg1); } syscall:::entry { @ll[probefunc] = llquantize(arg2, 10, 0, 6, 20); } syscall:::entry { @ll2 = llquantize(arg2, 2, 0, 12, 4, 3); } syscall:::entry { @sd = stddev(arg2); } syscall:::entry { @sd2[probefunc] = stddev((long)arg0 * 0x7fffffff); } syscall:::entry { @z[probefunc] = quantize(arg2, 10 / (arg0 - 3)); } syscall:::entry /arg2 != 4096/ { @zs = stddev(10 / (arg0 - 3)); } ERROR { @e[arg2, arg3, arg4] = count(); } END { printa(@sd); printa(@q); }' },
  { name: 'histograms by the probe\'s own keys past aggsize, cleared and truncated', text: '#pragma D option aggsize=600\nsyscall:::entry { @q[probefunc] = quantize(arg2); } syscall:::entry { @l = lquantize(arg0, 0, 10, 1); } syscall:::entry { @s[probename] = stddev(arg2); } syscall::read:entry /arg0 == 7/ { clear(@q); } syscall::read:entry /arg0 == 3/ { trunc(@s, 1); } END { printa(@q); printa(@s); }' },
  { name: 'keyed aggregations past aggsize', text: '#pragma D option aggsize=200\nsyscall:::entry { @[arg0, arg2] = count(); } syscall:::entry { @s[timestamp] = sum(arg2); } syscall:::entry { @m[arg1] = min(arg0); }' },
  { name: 'keyed aggregations cleared, truncated, normalized', text: 'syscall:::entry { @c[arg0] = count(); } syscall:::entry { @s[arg0, arg2] = sum(arg2); } syscall:::entry { @a[timestamp % 5] = avg(arg2); } syscall::read:entry /arg0 == 7/ { clear(@c); } syscall::read:entry /arg0 == 3/ { trunc(@s, 2); } END { printa(@c); printa(@s); normalize(@c, 2); printa(@c); denormalize(@c); printa(@c); printa("%d %@d\\n", @a); }' },
  { name: 'records a trampoline writes', text: 'syscall:::entry { trace(arg0); trace((int)arg2); trace((char)arg1); trace((short)arg2); trace(timestamp); } syscall:::entry /arg0 != 7/ { trace(10 / (arg0 - 3)); trace(epid); trace(cpu); } syscall:::entry { printf("%d %x %d\\n", arg0, arg2, (int)arg1); } syscall::read:entry { trace(id); } ERROR { trace(arg2); trace(arg3); }' },
  { name: 'a probe with more ECBs than a trampoline module may hold', text: Array.from({ length: 160 }, (_, i) => `syscall::read:entry /arg0 != ${i}/ { @c${i % 5} = count(); }`).join('\n') },
  // The principal buffers in the shared memory: records a trampoline places itself and those the policies place, drop or evict.
  { name: 'switch buffer with drops', text: '#pragma D option bufsize=100\nsyscall:::entry { trace(arg0); trace((int)arg2); } syscall:::entry /arg0 == 7/ { trace(timestamp); trace(probefunc); } syscall:::entry { trace((char)arg1); }' },
  { name: 'fill buffer with the END reserve', text: '#pragma D option bufsize=180\n#pragma D option bufpolicy=fill\nsyscall:::entry { trace(arg0); trace(arg2); } syscall::read:entry { printf("%s", probefunc); } END { trace(1); trace(2); trace(3); } END { trace(timestamp); }' },
  { name: 'ring buffer that wraps, with errors', text: '#pragma D option bufsize=150\n#pragma D option bufpolicy=ring\nsyscall:::entry { trace(arg0); } syscall:::entry { trace(10 / (arg0 - 3)); trace(arg2); } syscall:::entry { trace((char)arg1); trace((short)arg2); trace(arg0); } syscall::open:entry { trace(stringof(arg0)); }' },
  { name: 'ERROR in the middle of records', text: 'syscall:::entry { trace(arg0); trace(*(int *)arg1); trace(arg2); } syscall:::entry { trace((int)arg2); trace(10 / (arg0 - 3)); trace(arg1); } syscall:::entry { trace(arg1); trace(probefunc); trace(*(char *)arg0); } ERROR { trace(arg3); }' },
  { name: 'speculations committed into a small buffer', text: '#pragma D option nspec=2\n#pragma D option bufsize=120\n#pragma D option specsize=64\nsyscall:::entry { self->s = speculation(); } syscall:::entry /self->s/ { speculate(self->s); trace(arg0); trace(arg2); } syscall:::entry /self->s/ { speculate(self->s); trace(probefunc); } syscall:::entry /self->s && arg0 != 7/ { commit(self->s); self->s = 0; } syscall:::entry /self->s/ { discard(self->s); self->s = 0; }' },
  // Speculation buffers in the shared memory: on both CPUs, committed by the cleaner (committing-many), discarded, busy and unavailable, faulting after speculate(), and in ERROR clauses.
  { name: 'speculations on both CPUs committed and discarded by the cleaner', text: '#pragma D option destructive\n#pragma D option cleanrate=1000hz\n#pragma D option nspec=2\nBEGIN { s = speculation(); t = speculation(); } syscall:::entry /s/ { speculate(s); trace(arg0); trace(cpu); } syscall:::entry /t/ { speculate(t); printf("%s %d\\n", probefunc, arg2); } syscall::open:entry { chill(2000000); } syscall::open:entry /arg2 == 0x31/ { commit(s); discard(t); s = 0; t = 0; } syscall::read:entry /arg0 == 7 && s/ { commit(t); discard(s); } syscall:::return /s == 0/ { s = speculation(); t = speculation(); trace(s); trace(t); }' },
  { name: 'speculations busy, unavailable, and faulting after speculate()', text: '#pragma D option nspec=3\n#pragma D option specsize=200\nsyscall:::entry { self->s = speculation(); trace(self->s); } syscall:::entry /self->s/ { speculate(self->s); trace(arg0); trace(*(int *)arg1); } syscall:::entry /self->s/ { speculate(self->s); trace(stringof(arg0)); } syscall:::entry /self->s && cpu == 1/ { commit(self->s); self->s = 0; } syscall:::return /self->s/ { discard(self->s); self->s = 0; }' },
  { name: 'speculation inside ERROR', text: '#pragma D option nspec=2\nBEGIN { s = speculation(); } syscall:::entry { trace(10 / (arg0 - 3)); } syscall:::entry { trace(*(char *)arg1); } ERROR { speculate(s); trace(arg1); trace(arg3); trace(arg4); } ERROR /arg4 == 2/ { @e[arg1] = count(); } syscall::read:return { commit(s); } syscall::open:return { discard(s); } syscall:::return { s = speculation(); }' },
  { name: 'strings', text: 'syscall:::entry { this->s = strjoin(probefunc, "!"); printf("%s %d %s %s\\n", this->s, strlen(this->s), substr(this->s, 1, 3), this->s == "read!" ? "yes" : "no"); }' },
  // Dynamic variables: integer thread-locals a translated DIFO reads and writes inline, in the one table the interpreter also uses.
  { name: 'self-> across entry and return', text: 'syscall::read:entry { self->ts = timestamp + arg0; } syscall::read:return /self->ts/ { @q = quantize(timestamp - self->ts); trace(self->ts); self->ts = 0; } syscall:::entry /self->ts == 0/ { trace(probefunc); }', threads: true },
  { name: 'thread-locals freed by storing 0', text: 'syscall:::entry { self->a = arg0; self->b = arg2; } syscall::open:entry { self->a = 0; } syscall:::entry /self->a == 0/ { trace(self->b); self->b = 0; } syscall:::entry /self->b/ { trace(self->a); self->a = 0; self->a = 0; } END { trace(self->a); trace(self->b); }' },
  { name: 'thread-locals past dynvarsize', text: '#pragma D option dynvarsize=100\nsyscall:::entry { self->x = arg0 + 1; self->y = arg2; self->z = timestamp; } syscall:::entry /self->x/ { trace(self->x); trace(self->y); trace(self->z); } syscall:::entry /arg0 == 7/ { self->x = 0; }', threads: true },
  { name: 'thread-locals of many threads in few buckets', text: '#pragma D option dynvarsize=600\nself int b;\nsyscall:::entry { self->a = arg0; self->b = self->b + 1; self->c = self->a * 3 + self->b; } syscall::read:entry /self->b > 2/ { trace(self->a); trace(self->b); trace(self->c); self->b = 0; } END { trace(self->b); }', threads: true },
  { name: 'associative arrays beside thread-locals', text: 'syscall:::entry { a[arg0] = arg2; b[probefunc, arg0] = timestamp; self->c[arg2] = arg0; self->n = arg2; } syscall:::entry /a[arg0] != 0 && self->n/ { trace(a[arg0]); trace(b["read", arg0]); trace(self->c[arg2]); trace(self->n); a[arg0] = 0; self->n = 0; }', threads: true },
  { name: 'a by-reference thread-local beside integer ones', text: 'syscall:::entry { self->s = probefunc; self->n = arg0; } syscall:::entry /self->s == "read" && self->n != 0/ { trace(self->s); trace(self->n); self->s = "x"; } syscall:::entry { self->n = 0; trace(self->s); }', threads: true },
  // Associative arrays and by-reference values, whose key and value bytes the table keeps in its heap (dynvar.ts).
  { name: 'associative arrays of strings and structs', text: 'struct k { char c; int n; };\nthis struct k st;\nsyscall:::entry { this->st.c = 0; this->st.n = arg0; a[this->st] = arg2 + 1; n[probefunc, arg0] = execname; s[arg0] = probefunc; self->str[probefunc] = strjoin(probefunc, "x"); } syscall:::entry { this->st.c = 0; this->st.n = 3; trace(a[this->st]); this->st.n = 7; trace(a[this->st]); trace(n["read", arg0]); trace(s[arg0]); trace(self->str["read"]); trace(self->str[probename]); } syscall::open:entry { this->st.n = 3; a[this->st] = 0; }', threads: true },
  { name: 'members of associative arrays\' struct values', text: 'struct k { char c; int n; };\nthis struct k st;\nsyscall:::entry { this->st.c = 1; this->st.n = arg0; s[probefunc, arg2] = this->st; self->t[arg0] = this->st; } syscall:::entry { trace(s[probefunc, arg2].n); trace(s[probefunc, arg2].c); trace(self->t[arg0].n + 1); }', threads: true },
  { name: 'by-reference dynamic variables past dynvarsize', text: '#pragma D option dynvarsize=300\nsyscall:::entry { s[arg0, probefunc] = probefunc; self->p = execname; self->q[arg2] = probename; } syscall:::entry { trace(s[arg0, probefunc]); trace(self->p); trace(self->q[arg2]); } END { trace(s[3, "read"]); }', threads: true },
  // Aggregations by string keys, stddev() and llquantize().
  { name: 'string-keyed aggregations, stddev and llquantize', text: 'syscall:::entry { @c[execname] = count(); @s[probefunc, arg0] = sum(arg2); @sd[probefunc] = stddev(arg2); @sd2 = stddev((long)arg0); @ll[execname] = llquantize(arg2, 10, 0, 6, 20); @ll2 = llquantize(arg2, 2, 0, 12, 4); @st[stringof(probefunc), probename] = max(arg2); @mi[probefunc] = min(arg0); @av[execname, probefunc] = avg(arg2); @q[probename] = quantize(arg2); @lq[probefunc] = lquantize(arg2, 0, 5000, 100); }' },
  { name: 'string-keyed aggregations past aggsize', text: '#pragma D option aggsize=300\nsyscall:::entry { @[probefunc, arg0] = count(); } syscall:::entry { @s[execname, arg2] = stddev(arg0); } syscall:::entry { @l[probename] = llquantize(arg2, 10, 0, 3, 10); }' },
  // String keys a trampoline finds in its table: keys that call out (execname, strings subroutines make) and keys that do not, many
  // of them (the table grows), under predicates that do not call out (its keys then run in a firing context the trampoline makes)
  // and one that does (then the JavaScript keys), strings outside the arena (guest memory: the JavaScript's) and faults in keys.
  { name: 'string-keyed aggregations a trampoline finds', text: 'syscall:::entry { @e[execname] = count(); } syscall:::entry { @p[probefunc, execname, arg0] = sum(arg2); } syscall:::entry { @t[lltostr(timestamp)] = count(); } syscall:::entry { @j[strjoin(probefunc, lltostr(arg2))] = max(arg0); } syscall:::entry { @o[arg0 & 1 ? "odd" : "even", probename] = avg(arg2); } syscall:::entry /arg0 != 7/ { @pp[execname, arg2] = quantize(arg0); } syscall:::entry /probefunc != "open"/ { @c[execname] = count(); } syscall:::entry { @g[stringof(arg1)] = count(); } syscall:::entry { @z[lltostr(10 / (arg0 - 3))] = count(); } ERROR { @err[arg2, arg3, arg4] = count(); }' },
  { name: 'string keys cut at strsize', text: '#pragma D option strsize=6\nsyscall:::entry { @[strjoin(probefunc, "-and-more")] = count(); } syscall:::entry { @k[execname, lltostr(arg2 * 1000001)] = sum(arg0); } syscall:::entry { @h[probename, lltostr(timestamp)] = stddev(arg2); }' },
  { name: 'string-keyed aggregations cleared, truncated, normalized', text: 'syscall:::entry { @c[probefunc] = count(); } syscall:::entry { @s[probefunc, arg2] = sum(arg2); } syscall:::entry { @d[execname] = stddev(arg2); } syscall::read:entry /arg0 == 7/ { clear(@c); } syscall::read:entry /arg0 == 3/ { trunc(@s, 2); } END { printa(@c); printa(@s); normalize(@c, 2); printa(@c); denormalize(@c); printa(@c); printa("%s %@d\\n", @d); }' },
  // The big action stays with the interpreter (its module would pass MODULE_LIMIT): it and the translated clauses share self->t.
  { name: 'a thread-local the interpreter and translated DIF share', text: 'syscall:::entry { self->t = arg0 + 5; } syscall:::entry { self->t = self->t + BIG; } syscall:::entry /self->t != 0/ { trace(self->t); self->t = 0; }'.replace('BIG', 'arg0 * 1 + arg0 * 2 + arg0 * 3 + arg0 * 4 + arg0 * 5 + arg0 * 6 + arg0 * 7 + arg0 * 8 + arg0 * 9 + arg0 * 10 + arg0 * 11 + arg0 * 12 + arg0 * 13 + arg0 * 14 + arg0 * 15 + arg0 * 16 + arg0 * 17 + arg0 * 18 + arg0 * 19 + arg0 * 20 + arg0 * 21 + arg0 * 22 + arg0 * 23 + arg0 * 24 + arg0 * 25 + arg0 * 26 + arg0 * 27 + arg0 * 28 + arg0 * 29 + arg0 * 30 + arg0 * 31 + arg0 * 32 + arg0 * 33 + arg0 * 34 + arg0 * 35 + arg0 * 36 + arg0 * 37 + arg0 * 38 + arg0 * 39 + arg0 * 40 + arg0 * 41 + arg0 * 42 + arg0 * 43 + arg0 * 44 + arg0 * 45 + arg0 * 46 + arg0 * 47 + arg0 * 48 + arg0 * 49 + arg0 * 50 + arg0 * 51 + arg0 * 52 + arg0 * 53 + arg0 * 54 + arg0 * 55 + arg0 * 56 + arg0 * 57 + arg0 * 58 + arg0 * 59 + arg0 * 60 + arg0 * 61 + arg0 * 62 + arg0 * 63 + arg0 * 64 + arg0 * 65 + arg0 * 66 + arg0 * 67 + arg0 * 68 + arg0 * 69 + arg0 * 70 + arg0 * 71 + arg0 * 72 + arg0 * 73 + arg0 * 74 + arg0 * 75 + arg0 * 76 + arg0 * 77 + arg0 * 78 + arg0 * 79 + arg0 * 80 + arg0 * 81 + arg0 * 82 + arg0 * 83 + arg0 * 84 + arg0 * 85 + arg0 * 86 + arg0 * 87 + arg0 * 88 + arg0 * 89 + arg0 * 90 + arg0 * 91 + arg0 * 92 + arg0 * 93 + arg0 * 94 + arg0 * 95 + arg0 * 96 + arg0 * 97 + arg0 * 98 + arg0 * 99 + arg0 * 100 + arg0 * 101 + arg0 * 102 + arg0 * 103 + arg0 * 104 + arg0 * 105 + arg0 * 106 + arg0 * 107 + arg0 * 108 + arg0 * 109 + arg0 * 110 + arg0 * 111 + arg0 * 112 + arg0 * 113 + arg0 * 114 + arg0 * 115 + arg0 * 116 + arg0 * 117 + arg0 * 118 + arg0 * 119 + arg0 * 120 + arg0 * 121 + arg0 * 122 + arg0 * 123 + arg0 * 124 + arg0 * 125 + arg0 * 126 + arg0 * 127 + arg0 * 128 + arg0 * 129 + arg0 * 130 + arg0 * 131 + arg0 * 132 + arg0 * 133 + arg0 * 134 + arg0 * 135 + arg0 * 136 + arg0 * 137 + arg0 * 138 + arg0 * 139 + arg0 * 140 + arg0 * 141 + arg0 * 142 + arg0 * 143 + arg0 * 144 + arg0 * 145 + arg0 * 146 + arg0 * 147 + arg0 * 148 + arg0 * 149 + arg0 * 150 + arg0 * 151 + arg0 * 152 + arg0 * 153 + arg0 * 154 + arg0 * 155 + arg0 * 156 + arg0 * 157 + arg0 * 158 + arg0 * 159 + arg0 * 160 + arg0 * 161 + arg0 * 162 + arg0 * 163 + arg0 * 164 + arg0 * 165 + arg0 * 166 + arg0 * 167 + arg0 * 168 + arg0 * 169 + arg0 * 170 + arg0 * 171 + arg0 * 172 + arg0 * 173 + arg0 * 174 + arg0 * 175 + arg0 * 176 + arg0 * 177 + arg0 * 178 + arg0 * 179 + arg0 * 180 + arg0 * 181 + arg0 * 182 + arg0 * 183 + arg0 * 184 + arg0 * 185 + arg0 * 186 + arg0 * 187 + arg0 * 188 + arg0 * 189 + arg0 * 190 + arg0 * 191 + arg0 * 192 + arg0 * 193 + arg0 * 194 + arg0 * 195 + arg0 * 196 + arg0 * 197 + arg0 * 198 + arg0 * 199 + arg0 * 200 + arg0 * 201 + arg0 * 202 + arg0 * 203 + arg0 * 204 + arg0 * 205 + arg0 * 206 + arg0 * 207 + arg0 * 208 + arg0 * 209 + arg0 * 210 + arg0 * 211 + arg0 * 212 + arg0 * 213 + arg0 * 214 + arg0 * 215 + arg0 * 216 + arg0 * 217 + arg0 * 218 + arg0 * 219 + arg0 * 220 + arg0 * 221 + arg0 * 222 + arg0 * 223 + arg0 * 224 + arg0 * 225 + arg0 * 226 + arg0 * 227 + arg0 * 228 + arg0 * 229 + arg0 * 230 + arg0 * 231 + arg0 * 232 + arg0 * 233 + arg0 * 234 + arg0 * 235 + arg0 * 236 + arg0 * 237 + arg0 * 238 + arg0 * 239 + arg0 * 240 + arg0 * 241 + arg0 * 242 + arg0 * 243 + arg0 * 244 + arg0 * 245 + arg0 * 246 + arg0 * 247 + arg0 * 248 + arg0 * 249 + arg0 * 250 + arg0 * 251 + arg0 * 252 + arg0 * 253 + arg0 * 254 + arg0 * 255 + arg0 * 256 + arg0 * 257 + arg0 * 258 + arg0 * 259 + arg0 * 260 + arg0 * 261 + arg0 * 262 + arg0 * 263 + arg0 * 264 + arg0 * 265 + arg0 * 266 + arg0 * 267 + arg0 * 268 + arg0 * 269 + arg0 * 270 + arg0 * 271 + arg0 * 272 + arg0 * 273 + arg0 * 274 + arg0 * 275 + arg0 * 276 + arg0 * 277 + arg0 * 278 + arg0 * 279 + arg0 * 280 + arg0 * 281 + arg0 * 282 + arg0 * 283 + arg0 * 284 + arg0 * 285 + arg0 * 286 + arg0 * 287 + arg0 * 288 + arg0 * 289 + arg0 * 290 + arg0 * 291 + arg0 * 292 + arg0 * 293 + arg0 * 294 + arg0 * 295 + arg0 * 296 + arg0 * 297 + arg0 * 298 + arg0 * 299 + arg0 * 300 + arg0 * 301 + arg0 * 302 + arg0 * 303 + arg0 * 304 + arg0 * 305 + arg0 * 306 + arg0 * 307 + arg0 * 308 + arg0 * 309 + arg0 * 310 + arg0 * 311 + arg0 * 312 + arg0 * 313 + arg0 * 314 + arg0 * 315 + arg0 * 316 + arg0 * 317 + arg0 * 318 + arg0 * 319 + arg0 * 320 + arg0 * 321 + arg0 * 322 + arg0 * 323 + arg0 * 324 + arg0 * 325 + arg0 * 326 + arg0 * 327 + arg0 * 328 + arg0 * 329 + arg0 * 330 + arg0 * 331 + arg0 * 332 + arg0 * 333 + arg0 * 334 + arg0 * 335 + arg0 * 336 + arg0 * 337 + arg0 * 338 + arg0 * 339 + arg0 * 340 + arg0 * 341 + arg0 * 342 + arg0 * 343 + arg0 * 344 + arg0 * 345 + arg0 * 346 + arg0 * 347 + arg0 * 348 + arg0 * 349 + arg0 * 350 + arg0 * 351 + arg0 * 352 + arg0 * 353 + arg0 * 354 + arg0 * 355 + arg0 * 356 + arg0 * 357 + arg0 * 358 + arg0 * 359 + arg0 * 360 + arg0 * 361 + arg0 * 362 + arg0 * 363 + arg0 * 364 + arg0 * 365 + arg0 * 366 + arg0 * 367 + arg0 * 368 + arg0 * 369 + arg0 * 370 + arg0 * 371 + arg0 * 372 + arg0 * 373 + arg0 * 374 + arg0 * 375 + arg0 * 376 + arg0 * 377 + arg0 * 378 + arg0 * 379 + arg0 * 380 + arg0 * 381 + arg0 * 382 + arg0 * 383 + arg0 * 384 + arg0 * 385 + arg0 * 386 + arg0 * 387 + arg0 * 388 + arg0 * 389 + arg0 * 390 + arg0 * 391 + arg0 * 392 + arg0 * 393 + arg0 * 394 + arg0 * 395 + arg0 * 396 + arg0 * 397 + arg0 * 398 + arg0 * 399'), threads: true },
];

const bytesHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

const ARGS: bigint[][] = [
  [3n, 0x1000n, 64n],
  [0xffffffffffffffffn, 0n, 0x31n],
  [7n, 0xdeadbeefn, 4096n],
];

/**
 * Each backend's snapshot (epid and bytes of each record, or an error) after
 * syscall::read:entry fires with each of `reads`, on a machine whose first
 * thread lookup fires syscall::open:entry with (9, 8) from inside it.
 */
function withNestedOpen(program: NonNullable<ReturnType<typeof compile>['program']>, reads: bigint[][]): string[][] {
  return (['dif', 'wasm'] as const).map((backend) => {
    const reg = corpusRegistry();
    const options = defaultOptions();
    setOption(options, 'backend', backend);
    let nest = 0;
    let state: DTraceState | undefined;
    const open = reg.lookup('syscall', '', 'open', 'entry')!.id;
    const machine = new (class extends IdleMachine {
      override thread(): ReturnType<IdleMachine['thread']> {
        if (nest++ === 0) state!.probe(open, 0, [9n, 8n]);
        return super.thread();
      }
    })(1);
    state = new DTraceState(program, reg, machine, options);
    state.go(0, () => {});
    for (const args of reads) state.probe(reg.lookup('syscall', '', 'read', 'entry')!.id, 0, args);
    return state.snapshot(0, true).entries.map((e) => (e.kind === 'data' ? `${e.epid} ${bytesHex(e.bytes)}` : `error ${e.epid}`));
  });
}

interface Run {
  readonly records: string;
  readonly output: string;
  readonly translated: number;
}

/** Tids of the threads the firings of a `threads` program come from, in turn. */
const TIDS = [1, 2, 3, 40, 77, 1000003, 9, 12, 2, 1];

/** An idle machine whose CPUs run the thread the test says. */
class ThreadsMachine extends IdleMachine {
  readonly tids = [0, 0];
  override thread(cpu = 0): ReturnType<IdleMachine['thread']> {
    return { ...super.thread(), tid: this.tids[cpu]! };
  }
}

/** Runs `program` with `backend`: BEGIN, each other probe with each ARGS, END; with `threads`, each firing from the next of TIDS. */
function run(program: CompiledProgram, backend: 'dif' | 'wasm', consume: boolean, threads = false): Run {
  const reg = corpusRegistry();
  const options = defaultOptions();
  setOption(options, 'zdefs', null);
  for (const o of program.options) setOption(options, o.name, o.value);
  setOption(options, 'backend', backend);
  const machine = new ThreadsMachine(2);
  let turn = 0;
  const next = (cpu: number): void => {
    if (threads) machine.tids[cpu] = TIDS[turn++ % TIDS.length]!;
  };
  const state = new DTraceState(program, reg, machine, options);
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
    for (const p of probes) {
      for (const cpu of [0, 1, 0]) {
        next(cpu);
        state.probe(p.id, cpu, args);
      }
    }
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

/** run() without a consumer, and how many firings the plan's JavaScript aggregated (DTraceState's aggregateStep). */
function aggregatingRun(program: CompiledProgram, backend: 'dif' | 'wasm'): { records: string; calls: number } {
  const spy = vi.spyOn(DTraceState.prototype as unknown as { aggregateStep: () => void }, 'aggregateStep');
  try {
    const { records } = run(program, backend, false);
    return { records, calls: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe('backend=dif and backend=wasm give equal results', () => {
  let translated = 0;
  for (const { name, text, threads } of [...corpus, ...written] as { name: string; text: string; threads?: boolean }[]) {
    it(name, () => {
      const r = compile(text, corpusOptions(name, text));
      expect(r.program, name).toBeDefined();
      const program = r.program!;
      for (const consume of [false, true]) {
        const dif = run(program, 'dif', consume, threads);
        const wasm = run(program, 'wasm', consume, threads);
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
    // open:entry fires from inside the first read:entry predicate's execname.
    const outputs = withNestedOpen(program, [[3n, 0x1000n, 64n]]);
    // The nested firing's record first (arg1 8, execname), then the outer firing's: its arguments, not the nested one's.
    expect(outputs[0]!.map((r) => r.slice(0, 2))).toEqual(['3 ', '1 ', '2 ']);
    expect(outputs[0]![0]).toContain('0800000000000000');
    expect(outputs[0]![1]).toContain('03000000000000004000000000000000');
    expect(outputs[0]![2]).toContain('0010000000000000');
    expect(outputs[1]).toEqual(outputs[0]);
  });
  it('puts the records of a probe fired from an action, and its ERROR, before the record of the clause whose action fired it (both backends)', () => {
    const text = 'syscall::read:entry { trace(arg0); trace(execname); trace(arg2); } syscall::open:entry /arg0 == 9/ { trace(arg1); trace(*(int *)arg1); } syscall::open:entry /arg0 == 9/ { trace(arg1 + 1); }';
    const program = compile(text, corpusOptions('nested-action', text)).program!;
    // open:entry fires from inside the read:entry clause's trace(execname); the second firing has nothing nested.
    const outputs = withNestedOpen(program, [[3n, 0x1000n, 64n], [5n, 0x1000n, 65n]]);
    // The nested firing's ERROR and record (arg1 + 1 = 9) first, then the outer firing's whole record, then the second firing's.
    expect(outputs[0]!.map((r) => r.slice(0, 2))).toEqual(['er', '3 ', '1 ', '1 ']);
    expect(outputs[0]![1]).toContain('0900000000000000');
    for (const [i, arg0, arg2] of [[2, '03', '40'], [3, '05', '41']] as const) {
      const r = outputs[0]![i]!;
      expect(r.slice(2 + 32, 2 + 48)).toBe(`${arg0}00000000000000`);
      // The thread's execname follows arg0, and arg2 ends the record.
      expect(r.slice(2 + 48, 2 + 50)).not.toBe('00');
      expect(r.slice(-16)).toBe(`${arg2}00000000000000`);
    }
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
  it('drops the same thread-locals past dynvarsize both ways', () => {
    const { text } = written.find((w) => w.name === 'thread-locals past dynvarsize')!;
    const program = compile(text, corpusOptions('dynvarsize', text)).program!;
    const [dif, wasm] = (['dif', 'wasm'] as const).map((backend) => run(program, backend, false, true));
    expect(dif!.records).toMatch(/"dynamic":[1-9]/);
    expect(wasm!.records).toBe(dif!.records);
  });
  it('keys an associative array by every byte of a struct, not up to its first zero byte (both backends)', () => {
    const text = 'struct k { char c; int n; };\nthis struct k st;\nBEGIN { this->st.c = 0; this->st.n = 1; a[this->st] = 10; this->st.n = 2; a[this->st] = 20; this->st.n = 1; printf("%d %d\\n", a[this->st], a[this->st] + 0); this->st.n = 3; printf("%d\\n", a[this->st]); }';
    const program = compile(text, corpusOptions('struct keys', text)).program!;
    for (const backend of ['dif', 'wasm'] as const) expect(run(program, backend, true).output).toContain('10 10\n0\n');
  });
  it('finds string-keyed entries in the trampoline\'s table: the JavaScript aggregates only a firing that makes an entry', () => {
    const text = 'syscall:::entry { @[execname, probefunc] = count(); } syscall:::entry { @n[lltostr(arg2)] = sum(arg0); }';
    const program = compile(text, corpusOptions('string keys', text)).program!;
    const dif = aggregatingRun(program, 'dif');
    const wasm = aggregatingRun(program, 'wasm');
    expect(wasm.records).toBe(dif.records);
    const probes = corpusRegistry().match({ provider: 'syscall', module: '', function: '', name: 'entry' }).length;
    // Every firing of both clauses, three CPUs' worth for each row of arguments.
    expect(dif.calls).toBe(2 * probes * 3 * ARGS.length);
    // One entry a probe for the first clause (execname is the idle machine's), one an argument for the second, in each round.
    expect(wasm.calls).toBe(ARGS.length * (probes + 1));
  });
  it('updates histograms and stddev() by no key or the probe\'s own keys in the trampoline: the JavaScript aggregates only a firing that arms a cell', () => {
    const text = 'syscall:::entry { @[probefunc] = quantize(arg2); } syscall:::entry { @s = stddev(arg0); } syscall:::entry { @l = lquantize(arg2, 0, 100, 10, arg0); }';
    const program = compile(text, corpusOptions('histogram cells', text)).program!;
    const dif = aggregatingRun(program, 'dif');
    const inUse = regionBytesInUse();
    const wasm = aggregatingRun(program, 'wasm');
    // The cells' regions are handed back at stop, with everything else.
    expect(regionBytesInUse()).toBe(inUse);
    expect(wasm.records).toBe(dif.records);
    const probes = corpusRegistry().match({ provider: 'syscall', module: '', function: '', name: 'entry' }).length;
    expect(dif.calls).toBe(3 * probes * 3 * ARGS.length);
    // Each probe's first firing of each clause in each round (a snapshot disarms the cells).
    expect(wasm.calls).toBe(3 * probes * ARGS.length);
  });
  it('translated the DIF of the programs above', () => {
    expect(translated).toBeGreaterThan(200);
  });
});
