// The large generated D script that `npm run bench` compiles (and that
// scripts/dump-corpus.mjs includes, so its output is compared too): clauses with
// predicates, thread-locals, clause-locals, associative arrays, aggregations,
// if/else, printf and strings.
export function generate(clauses) {
  const lines = ['#pragma D option quiet', 'inline int LIMIT = 100;', 'int counts[string, int];', 'typedef struct req { int id; long size; char name[16]; } req_t;', ''];
  for (let i = 0; i < clauses; i++) {
    lines.push(
      `syscall::read${i}:entry, fbt::vfs_read${i}:entry`,
      `/pid != 0 && arg0 > ${i % 7} && execname != "init"/`,
      '{',
      `\tself->ts${i % 50} = timestamp;`,
      `\tthis->r = (req_t *)arg1;`,
      `\tcounts[probefunc, ${i}] = counts[probefunc, ${i}] + 1;`,
      `\t@calls${i % 20}[execname, probefunc] = count();`,
      `\t@bytes${i % 20} = quantize(arg2 * ${i % 9 + 1} + LIMIT);`,
      `\tif (arg2 > LIMIT) { @big${i % 10}[pid] = sum(arg2); } else { @small${i % 10} = max(arg2); }`,
      `\tprintf("%s %d %d %s\\n", execname, pid, this->r->id + ${i}, probefunc);`,
      '}',
      '',
    );
  }
  return lines.join('\n');
}
