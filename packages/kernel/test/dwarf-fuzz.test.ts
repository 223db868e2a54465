import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ElfError, parseElf } from '../src/elf/index.js';
import { DwarfError, readDwarf } from '../src/dwarf/index.js';
import { KrtldError, linkModule } from '../src/krtld/index.js';
import { fixture } from './fixtures/toolchain.js';

/** Mutating debug sections or the object yields only the readers' own errors. */
it('DWARF reading and module linking never throw foreign errors on mutated input (fuzz)', () => {
  const sources = ['sample-x86_64.o', 'sample-arm.o', 'sample-x86_64-dwarf4.o'].map(fixture);
  const debugRanges = sources.map((b) => {
    const elf = parseElf(b);
    return elf.sections.filter((s) => s.name.startsWith('.debug_')).map((s) => [s.offset, s.size] as const);
  });
  let thrown = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 }),
      fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      (which, edits, anywhere) => {
        const b = sources[which]!.slice();
        const ranges = debugRanges[which]!;
        for (const [r, pos, v] of edits) {
          if (anywhere) b[pos % b.length] = v;
          else {
            const [off, size] = ranges[r % ranges.length]!;
            if (size) b[off + (pos % size)] = v;
          }
        }
        try {
          const info = readDwarf(b);
          for (const t of info.types.keys()) info.typeName(t);
        } catch (e) {
          if (!(e instanceof DwarfError || e instanceof ElfError || e instanceof KrtldError)) throw e;
          thrown++;
        }
        try {
          linkModule(b, { name: 'm', base: 0xc0000000n, resolve: () => 0xc0001000n });
        } catch (e) {
          if (!(e instanceof ElfError || e instanceof KrtldError)) throw e;
        }
      },
    ),
    { numRuns: 600 },
  );
  expect(thrown).toBeGreaterThan(0);
});
