// The examples updater's realignment of outputs shown with "...": each shown
// run of lines is taken again from where it now appears in the real output.
import { describe, expect, it } from 'vitest';
import { matches, realign } from '../scripts/examples.mjs';

const actual = ['header', '  853 sdt kernel a', '  854 sdt kernel b', '  855 sdt kernel c', '  861 sdt hello d', '  862 sdt hello e'];

describe('realign', () => {
  it('takes each shown run again from its new place, keeping the "..." lines and the blank lines after', () => {
    const expected = ['header', '  847 sdt kernel a', '...', '  855 sdt hello d', '...', ''];
    const out = realign(expected, actual);
    expect(out).toEqual(['header', '  853 sdt kernel a', '...', '  861 sdt hello d', '...', '']);
    expect(matches(out ?? [], actual)).toBe(true);
  });
  it('anchors a last shown run to the end of the output', () => {
    expect(realign(['...', '  855 sdt hello e', ''], actual)).toEqual(['...', '  862 sdt hello e', '']);
  });
  it('gives nothing when a shown line no longer appears in any shape', () => {
    expect(realign(['header', '...', '  855 sdt hello gone', '...'], actual)).toBeUndefined();
  });
});
