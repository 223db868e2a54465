// The documentation's command examples: in a fenced block, a line
// "$ <command>" that runs wdtrace, followed by the output it prints (standard
// output and standard error as one stream). A line of the output that is
// just "..." stands for any number of lines. A block preceded by the comment
// <!-- example not run: reason --> is left alone (it needs files that only
// the reader has). Used by the docs test, which runs every example against
// the built CLI, and by `node scripts/examples.mjs --update`, which rewrites
// the output of examples from a real run (of the pages named after --update,
// or of every page); an output with "..." keeps its shape.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SITE = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = join(SITE, '..', '..');
const CLI = join(ROOT, 'apps/cli/bin/wdtrace.js');

/** Whether a command's quotes are closed (a command may go on over several lines). */
function closed(s) {
  let q = '';
  for (const c of s) {
    if (q !== '') {
      if (c === q) q = '';
    } else if (c === "'" || c === '"') q = c;
  }
  return q === '';
}

/** The examples of one page: { file, line, command, expected, start, end } (start/end: the output's line range). */
export function pageExamples(file) {
  const lines = readFileSync(join(SITE, file), 'utf8').split('\n');
  const out = [];
  let inBlock = false;
  let skip = false;
  let cur;
  const finish = (end) => {
    if (cur) out.push({ ...cur, end });
    cur = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('```')) {
      if (inBlock) finish(i);
      else skip = i > 0 && /^<!-- example not run/.test(lines[i - 1]);
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock || skip) continue;
    if (l.startsWith('$ ') && /\bwdtrace\b/.test(l)) {
      finish(i);
      const line = i + 1;
      let command = l.slice(2);
      while (!closed(command) && i + 1 < lines.length) command += '\n' + lines[++i];
      cur = { file, line, command, expected: [], start: i + 1 };
    } else if (cur) cur.expected.push(l);
  }
  return out;
}

export function allExamples() {
  const pages = [];
  for (const dir of ['guide', 'providers']) {
    for (const f of readdirSync(join(SITE, dir)).sort()) if (f.endsWith('.md')) pages.push(`${dir}/${f}`);
  }
  return pages.flatMap(pageExamples);
}

/** Runs an example's command from the repository root, `wdtrace` being the built CLI; its output lines. */
export function runExample(example) {
  const script = `wdtrace() { node '${CLI}' "$@"; }\n{ ${example.command}\n} 2>&1`;
  const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'latin1', input: '', timeout: 300_000 });
  return trimEnd(r.stdout.split('\n'));
}

/** runExample without blocking: the docs test runs several at once. */
export function runExampleAsync(example) {
  const script = `wdtrace() { node '${CLI}' "$@"; }\n{ ${example.command}\n} 2>&1`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    const chunks = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.stdout.on('data', (c) => chunks.push(c));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(trimEnd(Buffer.concat(chunks).toString('latin1').split('\n')));
    });
    child.stdin.end();
  });
}

function trimEnd(lines) {
  const l = [...lines];
  while (l.length > 0 && l[l.length - 1] === '') l.pop();
  return l;
}

/** Whether `actual` matches `expected`, a "..." line matching any run of lines. */
export function matches(expected, actual) {
  const exp = trimEnd(expected);
  const memo = new Map();
  const go = (i, j) => {
    const key = i * 100000 + j;
    if (memo.has(key)) return memo.get(key);
    let r;
    if (i === exp.length) r = j === actual.length;
    else if (exp[i].trim() === '...') r = go(i + 1, j) || (j < actual.length && go(i, j + 1));
    else r = j < actual.length && exp[i] === actual[j] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

const where = (ex) => `${ex.file}:${ex.line}`;

/** A line with its numbers (decimal, hex, instruction bytes) blurred, for finding where it moved to. */
const shape = (l) => l.replace(/\b(0x)?[0-9a-f]*\d[0-9a-f]*\b/gi, '#').replace(/\b[0-9a-f]{2}\b/gi, '#');

/**
 * The expected output with "..." lines kept and each run of shown lines
 * replaced by the real lines it now corresponds to: the first place at or
 * after the previous run where every line has the same shape. Undefined when
 * a run is not found, or the result would not match.
 */
export function realign(expected, actual) {
  const out = [];
  let at = 0;
  for (let i = 0; i < expected.length; ) {
    if (expected[i].trim() === '...') {
      out.push(expected[i++]);
      continue;
    }
    let end = i;
    while (end < expected.length && expected[end].trim() !== '...') end++;
    const run = expected.slice(i, end);
    // Blank lines ending the output separate it from the next command: kept as they are.
    let want = run.length;
    if (end === expected.length) while (want > 0 && run[want - 1] === '') want--;
    // Output shown from its first line stays anchored there; its last shown
    // lines, to its end (blank lines aside).
    let last = actual.length;
    while (last > 0 && actual[last - 1] === '') last--;
    const starts = [];
    if (i === 0) starts.push(0);
    else if (end === expected.length) starts.push(last - want);
    else for (let j = at; j + want <= actual.length; j++) starts.push(j);
    const found = starts.find((j) => j >= at && run.slice(0, want).every((l, k) => shape(l) === shape(actual[j + k] ?? ''))) ?? -1;
    if (found < 0) return undefined;
    out.push(...actual.slice(found, found + want), ...run.slice(want));
    at = found + want;
    i = end;
  }
  return matches(out, actual) ? out : undefined;
}

if (process.argv[2] === '--update') {
  // `--update guide/x.md providers/y.md` updates those pages only.
  const pages = process.argv.slice(3);
  const byFile = new Map();
  for (const ex of allExamples().filter((e) => pages.length === 0 || pages.includes(e.file))) {
    const elided = ex.expected.some((l) => l.trim() === '...');
    const ran = runExample(ex);
    if (matches(ex.expected, ran)) continue;
    // An output with "..." keeps its shape: each shown run of lines is taken
    // again from where it now appears in the real output (addresses and
    // probe IDs move when the guest kernel changes), if it still does.
    const actual = elided ? realign(ex.expected, ran) : ran;
    if (!actual) {
      console.log(`not updated ${where(ex)}: its shown lines no longer appear in the output`);
      continue;
    }
    if (!byFile.has(ex.file)) byFile.set(ex.file, []);
    byFile.get(ex.file).push({ ex, actual });
  }
  for (const [file, updates] of byFile) {
    const lines = readFileSync(join(SITE, file), 'utf8').split('\n');
    for (const { ex, actual } of updates.sort((a, b) => b.ex.start - a.ex.start)) {
      // Keep the blank lines that separate this output from the next command.
      let blanks = 0;
      while (blanks < ex.expected.length && ex.expected[ex.expected.length - 1 - blanks] === '') blanks++;
      if (ex.expected.some((l) => l.trim() === '...')) while (blanks > 0 && actual.at(-1) === '') actual.pop();
      lines.splice(ex.start, ex.end - ex.start, ...actual, ...Array(blanks).fill(''));
      console.log(`updated ${file}:${ex.line}`);
    }
    writeFileSync(join(SITE, file), lines.join('\n'));
  }
}
