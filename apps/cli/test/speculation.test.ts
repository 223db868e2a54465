// Speculation states as the kernel moves them (dtrace_speculation,
// dtrace_speculation_buffer/commit/discard/clean) and dtrace(1)'s status
// messages for failed speculations and speculative drops.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

describe('failed speculations: busy and unavailable', () => {
  it('counts a speculation() as busy while a discarded speculation awaits the cleaner, and succeeds once it ran', async () => {
    // discard() of a speculation nothing was speculated to leaves it discarding until the cleaner (cleanrate) runs.
    const r = await wdtrace('-q', '--run-for', '2s', '-n', 'BEGIN { s = speculation(); discard(s); t = speculation(); printf("%d %d\\n", s, t); } tick-1s { printf("%d\\n", speculation()); exit(0); }');
    expect(r.stdout).toBe('1 0\n1\n\n');
    expect(r.stderr).toBe('dtrace: 1 failed speculation (available buffer(s) still busy)\n');
  });
  it('counts a speculation() as unavailable when every speculation is active', async () => {
    const r = await wdtrace('-q', '-x', 'nspec=2', '-n', 'BEGIN { a = speculation(); b = speculation(); c = speculation(); d = speculation(); printf("%d %d %d %d\\n", a, b, c, d); exit(0); }');
    expect(r.stdout).toBe('1 2 0 0\n\n');
    expect(r.stderr).toBe('dtrace: 2 failed speculations (no speculative buffer available)\n');
  });
  it('frees a speculation committed on the only CPU that speculated at once', async () => {
    const r = await wdtrace('-q', '-n', 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("spec\\n"); } BEGIN { commit(s); } BEGIN { printf("%d\\n", speculation()); exit(0); }');
    expect(r.stdout).toBe('spec\n1\n\n');
    expect(r.stderr).toBe('');
  });
  it('commits the other CPUs\' data when the cleaner runs, the speculation busy until then', async () => {
    const r = await wdtrace(
      '-q', '--cpus', '2', '--run-for', '3s', '-n',
      'int s, phase; ' +
        'profile-100ms /cpu == 0 && phase == 0/ { s = speculation(); phase = 1; } ' +
        'profile-100ms /cpu == 0 && phase == 1/ { speculate(s); printf("cpu0 data\\n"); } ' +
        'profile-100ms /cpu == 1 && phase == 1/ { speculate(s); printf("cpu1 data\\n"); phase = 2; } ' +
        'profile-100ms /cpu == 0 && phase == 2/ { commit(s); phase = 3; } ' +
        'profile-100ms /cpu == 0 && phase == 3/ { printf("right after: %d\\n", speculation()); phase = 4; } ' +
        'tick-1s { printf("later: %d\\n", speculation()); exit(0); }',
    );
    expect(r.stdout).toBe('cpu0 data\nright after: 0\nlater: 1\ncpu1 data\n\n');
    expect(r.stderr).toBe('dtrace: 1 failed speculation (available buffer(s) still busy)\n');
  });
  it('counts a CPU whose speculative data was all dropped as a new one: the commit then waits for the cleaner', async () => {
    // The first speculate()'s record does not fit specsize, so the buffer is still empty at the second (dtb_offset 0).
    const r = await wdtrace('-q', '-x', 'specsize=40', '--run-for', '1s', '-n', 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("%s", "too long for the speculation buffer"); } BEGIN { speculate(s); printf("x"); } BEGIN { commit(s); } BEGIN { printf("%d\\n", speculation()); exit(0); }');
    expect(r.stdout).toBe('x0\n\n');
    expect(r.stderr).toBe('dtrace: 1 speculative drop\ndtrace: 1 failed speculation (available buffer(s) still busy)\n');
  });
  it('drops the data of a speculate() to a speculation being committed', async () => {
    const r = await wdtrace(
      '-q', '--cpus', '2', '--run-for', '3s', '-n',
      'int s, phase; ' +
        'profile-100ms /cpu == 0 && phase == 0/ { s = speculation(); phase = 1; } ' +
        'profile-100ms /cpu == 1 && phase == 1/ { speculate(s); printf("cpu1 data\\n"); phase = 2; } ' +
        'profile-100ms /cpu == 0 && phase == 2/ { commit(s); phase = 3; } ' +
        'profile-100ms /cpu == 0 && phase == 3/ { speculate(s); printf("too late\\n"); phase = 4; } ' +
        'tick-1s { exit(0); }',
    );
    expect(r.stdout).toBe('cpu1 data\n\n');
    expect(r.stderr).toBe('');
  });
  it('faults with an illegal operation on a speculation id beyond nspec', async () => {
    const r = await wdtrace('-q', '-n', 'BEGIN { speculate(2); printf("x"); } BEGIN { commit(3); } BEGIN { discard(7); } BEGIN { speculate(0); printf("dropped"); } BEGIN { exit(0); }');
    expect(r.stdout).toBe('\n');
    expect(r.stderr).toBe(
      'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): illegal operation in action #1\n' +
        'dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): illegal operation in action #1\n' +
        'dtrace: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): illegal operation in action #1\n',
    );
  });
});

describe('speculative drops', () => {
  it('reports drops of a committed speculation, not of a discarded one', async () => {
    const body = (end: string) => `BEGIN { s = speculation(); } BEGIN { speculate(s); printf("%s", "a long string that does not fit"); } BEGIN { speculate(s); printf("x"); } BEGIN { ${end}(s); } BEGIN { exit(0); }`;
    const committed = await wdtrace('-q', '-x', 'specsize=40', '-n', body('commit'));
    expect(committed.stdout).toBe('x\n');
    expect(committed.stderr).toBe('dtrace: 1 speculative drop\n');
    const discarded = await wdtrace('-q', '-x', 'specsize=40', '-n', body('discard'));
    expect(discarded.stdout).toBe('\n');
    expect(discarded.stderr).toBe('');
  });
});
