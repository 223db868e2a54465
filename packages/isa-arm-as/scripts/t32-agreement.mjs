// Agreement of a T32 walk (walkT32) with llvm-objdump's listing of the same
// bytes: the share of llvm's instruction addresses where ours start too
// (boundaries), and at those, equal mnemonics and equal text. VFP/NEON
// instructions, which the core decodes only as a class, are set aside.
// Shared by scripts/compare-llvm-t32.mjs and the tests.

/** ours: [{ address, insn }], theirs: [{ address, text }]. */
export function compareThumbStreams(ours, theirs) {
  const byAddress = new Map(ours.map((l) => [l.address, l]));
  let same = 0;
  let considered = 0;
  let mnemonicOk = 0;
  let textOk = 0;
  let vfp = 0;
  const bad = new Map();
  const strip = (m) => m.replace(/(eq|ne|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?(\.w)?$/, '');
  for (const t of theirs) {
    const o = byAddress.get(t.address);
    if (!o) continue;
    same++;
    const lm = t.text.split('\t')[0];
    if (o.insn.classes.has('vfp') && /^(v|<unknown>)/.test(lm)) {
      vfp++;
      continue;
    }
    considered++;
    if (o.insn.mnemonic === lm) mnemonicOk++;
    else {
      const key = `${o.insn.encoding}: ours ${strip(o.insn.mnemonic)} llvm ${strip(lm)}`;
      const e = bad.get(key) ?? { n: 0, examples: [] };
      e.n++;
      if (e.examples.length < 2) e.examples.push(`${o.insn.word.toString(16)} ours '${o.insn.text}' llvm '${t.text}'`);
      bad.set(key, e);
    }
    if (o.insn.text === t.text) textOk++;
    else if (o.insn.mnemonic === lm) {
      const key = `${o.insn.encoding}: operands`;
      const e = bad.get(key) ?? { n: 0, examples: [] };
      e.n++;
      if (e.examples.length < 2) e.examples.push(`${o.insn.word.toString(16)} ours '${o.insn.text}' llvm '${t.text}'`);
      bad.set(key, e);
    }
  }
  return {
    boundaries: same / theirs.length,
    mnemonics: mnemonicOk / considered,
    text: textOk / considered,
    vfp,
    worst: [...bad].sort((a, b) => b[1].n - a[1].n),
  };
}
