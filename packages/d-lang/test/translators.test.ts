// Translators run: programs compiled here are loaded into dtrace-core's
// framework (DTraceState, the real DIF VM) and a probe is fired with
// arguments; the consumer's output shows what the translations computed.
import { describe, expect, it } from 'vitest';
import { fireOnce } from './fire.js';

const run = (source: string, args: bigint[]): string => fireOnce(source, args);

const OUT = `
typedef struct out { int id; long twice; string name; int unset; } out_t;
translator out_t < uint64_t x > { id = x; twice = x * 2; name = x > 5 ? "big" : "small"; };
`;

describe('translators at run time', () => {
  it('builds a whole translated struct: defined members set, the others zero', () => {
    const out = run(`${OUT} test:::fire { this->t = xlate <out_t> (arg0); printf("%d %d %s %d\\n", this->t.id, this->t.twice, this->t.name, this->t.unset); }`, [5n]);
    expect(out).toBe('5 10 small 0\n');
  });

  it('evaluates the operand of a whole translation once', () => {
    const out = run(`${OUT} test:::fire { this->n = arg0; this->t = xlate <out_t> (this->n++); printf("%d %d %d\\n", this->t.id, this->t.twice, this->n); }`, [5n]);
    expect(out).toBe('5 10 6\n');
  });

  it('gives a pointer for xlate <T *>, usable with -> and *', () => {
    const out = run(
      `${OUT} test:::fire { this->p = xlate <out_t *> (arg1); printf("%d %s %d %d\\n", this->p->id, this->p->name, xlate <out_t *> (arg1)->twice, (*xlate <out_t *> (arg0)).id); }`,
      [5n, 7n],
    );
    expect(out).toBe('7 big 14 5\n');
  });

  it('keeps a translation in a thread-local and reads members of one in place', () => {
    const out = run(`${OUT} test:::fire { self->t = xlate <out_t> (arg1); printf("%d %s %d\\n", self->t.twice, xlate <out_t> (arg0).name, sizeof (xlate <out_t> (arg0))); }`, [
      3n,
      9n,
    ]);
    expect(out).toBe('18 small 280\n');
  });

  it('traces a translated struct whole: its bytes as built', () => {
    const out = run(`typedef struct out { int id; long twice; int unset; } out_t;
      translator out_t < uint64_t x > { id = x; twice = x * 2; };
      test:::fire { trace(xlate <out_t> (arg0)); }`, [7n]);
    expect(out).toContain('0: 07 00 00 00 00 00 00 00 0e 00 00 00 00 00 00 00');
    expect(out).toContain('10: 00 00 00 00 00 00 00 00 ');
  });

  it('works through inlines of translations (pointer and whole struct)', () => {
    const out = run(`${OUT} inline out_t *cur = xlate <out_t *> (arg1); inline out_t whole = xlate <out_t> (arg0);
      test:::fire { this->w = whole; printf("%d %s %d\\n", cur->id, cur->name, this->w.twice); }`, [5n, 7n]);
    expect(out).toBe('7 big 10\n');
  });

  it('selects the translator by input type like dt_xlator_lookup', () => {
    const src = `
typedef struct out { int which; } out_t;
typedef int myint_t;
struct foo { int x; };
translator out_t < long x > { which = 1; };
translator out_t < int x > { which = 2; };
translator out_t < void *p > { which = 3; };
translator out_t < char *s > { which = 4; };
test:::fire {
  printf("%d %d %d %d %d %d %d\\n", xlate <out_t> ((int)arg0).which, xlate <out_t> ((long)arg0).which,
    xlate <out_t> ((myint_t)arg0).which, xlate <out_t> ((short)arg0).which, xlate <out_t> ((struct foo *)arg0).which,
    xlate <out_t> ((char *)arg0).which, xlate <out_t> ("abc").which);
}`;
    expect(run(src, [1n])).toBe('2 1 2 1 3 4 4\n');
  });
});
