// Reads an encoding description (encodings/a32.decode, encodings/t32.decode)
// into entries with mask, value, named fields and run-loop flags, checks it
// (names, widths, equal-specificity overlaps) and computes the bucketed
// candidate lists the generated decoders search. Node only: used by
// scripts/gen-decoder.mjs.

const FLAGS = ['pure', 'mem', 'branch', 'block'];

function popcount(x) {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

/**
 * Parses one line. `widths` lists the pattern widths the file allows (A32:
 * [32]; T32: [16, 32]). A field named `cond` in a 32-bit A32 line must be
 * bits 31:28 (the unconditional space is carved out by the decoder).
 */
function parseLine(file, line, lineNo, widths, condIsA32) {
  const [name, ...tokens] = line.trim().split(/\s+/);
  const where = `${file}:${lineNo}`;
  const flags = tokens.filter((t) => t.startsWith('@')).map((t) => t.slice(1));
  const groups = tokens.filter((t) => !t.startsWith('@'));
  for (const f of flags) if (!FLAGS.includes(f)) throw new Error(`${where}: unknown flag @${f}`);
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw new Error(`${where}: bad name '${name}'`);
  // First pass: the pattern's width.
  let width = 0;
  for (const group of groups) {
    const field = /^([a-z][a-z0-9]*):(\d+)$/.exec(group);
    if (field) width += Number(field[2]);
    else if (/^[01x]+$/.test(group)) width += group.length;
    else throw new Error(`${where}: bad group '${group}'`);
  }
  if (!widths.includes(width)) throw new Error(`${where}: pattern of ${name} has ${width} bits, not ${widths.join(' or ')}`);
  let bit = width;
  let mask = 0;
  let value = 0;
  let conditional = false;
  const fields = [];
  for (const group of groups) {
    const field = /^([a-z][a-z0-9]*):(\d+)$/.exec(group);
    if (field) {
      const w = Number(field[2]);
      bit -= w;
      if (field[1] === 'cond' && condIsA32) {
        if (bit !== 28 || w !== 4) throw new Error(`${where}: cond must be bits 31:28`);
        conditional = true;
      }
      if (fields.some((f) => f[0] === field[1])) throw new Error(`${where}: field ${field[1]} named twice`);
      fields.push([field[1], bit, w]);
      continue;
    }
    for (const ch of group) {
      bit--;
      if (ch !== 'x') {
        mask |= 1 << bit;
        if (ch === '1') value |= 1 << bit;
      }
    }
  }
  return {
    name, width, mask: mask >>> 0, value: value >>> 0, conditional, fields, fixed: popcount(mask), lineNo,
    pure: flags.includes('pure'), mem: flags.includes('mem'), branch: flags.includes('branch'), block: flags.includes('block'),
  };
}

/** Run-loop class: 1 @pure, 2 @mem, 3 @branch, 4 @block, 0 otherwise. */
export function runClass(e) {
  return e.pure ? 1 : e.mem ? 2 : e.branch ? 3 : e.block ? 4 : 0;
}

/**
 * Reads `text` (the file `file`) into entries numbered from 1 in file
 * order, after checking names and overlaps. `overlaps(a, b)` may refine
 * whether two patterns of the same width can match one word.
 */
export function readTable(file, text, { widths, condIsA32 = false, overlaps = () => true }) {
  const entries = [];
  text.split('\n').forEach((line, i) => {
    const body = line.replace(/#.*/, '').trim();
    if (body) entries.push(parseLine(file, body, i + 1, widths, condIsA32));
  });
  const names = new Set();
  entries.forEach((e, index) => {
    if (names.has(e.name)) throw new Error(`${file}:${e.lineNo}: duplicate name ${e.name}`);
    names.add(e.name);
    e.id = index + 1;
  });
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const a = entries[i];
      const b = entries[j];
      if (a.width !== b.width || a.fixed !== b.fixed) continue;
      if ((a.value & b.mask & a.mask) >>> 0 !== (b.value & a.mask & b.mask) >>> 0) continue;
      // Resolved when one more specific line claims every word both match.
      const mask = (a.mask | b.mask) >>> 0;
      const value = (a.value | b.value) >>> 0;
      const covered = entries.some((c) => c.width === a.width && c.fixed > a.fixed && ((c.mask & mask) >>> 0) === c.mask && ((value & c.mask) >>> 0) === c.value);
      if (!covered && overlaps(a, b)) throw new Error(`${file}:${b.lineNo}: ${b.name} overlaps ${a.name} (line ${a.lineNo}) with equal specificity`);
    }
  }
  return entries;
}

/**
 * Candidate lists for a bucketed decoder: for each key (0 .. keyCount-1),
 * `wordOf(key)` gives the key bits as a word and `keyMask` which bits they
 * are; `admit(entry, key)` may exclude entries. Lists hold ids, most fixed
 * bits first. Returns { start, data }: identical lists are stored once,
 * data[start] = length followed by the ids.
 */
export function buckets(entries, keyCount, keyMask, wordOf, admit = () => true) {
  const ordered = [...entries].sort((a, b) => b.fixed - a.fixed || a.id - b.id);
  const start = [];
  const data = [];
  const seen = new Map();
  for (let key = 0; key < keyCount; key++) {
    const word = wordOf(key);
    const list = [];
    for (const e of ordered) {
      if (!admit(e, key)) continue;
      const m = (e.mask & keyMask) >>> 0;
      if (((word & m) >>> 0) === ((e.value & m) >>> 0)) list.push(e.id);
    }
    const k = list.join(',');
    let at = seen.get(k);
    if (at === undefined) {
      at = data.length;
      seen.set(k, at);
      data.push(list.length, ...list);
    }
    start.push(at);
  }
  return { start, data };
}
