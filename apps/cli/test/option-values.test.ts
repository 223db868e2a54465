// Option values as dt_options.c reads them, the same from -x and from #pragma D option.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

describe('boolean option values', () => {
  const on = ['yes', 'YES', 'true', 'enable', 'enabled', 'on', 'set', 'SeT'];
  const off = ['no', 'NO', 'false', 'disable', 'disabled', 'off', 'UnSeT'];

  it('accepts every spelling dtrace accepts, in a pragma', async () => {
    const pragmas = [...on.map((v) => `#pragma D option quiet=${v}`), ...off.map((v) => `#pragma D option flowindent=${v}`)].join('\n');
    const r = await wdtrace('-n', `${pragmas}\nBEGIN { printf("quiet\\n"); exit(0) }`);
    expect(r.stdout).toBe('quiet\n\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('turns an option off with a negative spelling', async () => {
    const r = await wdtrace('-n', '#pragma D option quiet=disabled\nBEGIN { exit(0) }');
    expect(r.stdout).toContain(':BEGIN');
    expect(r.status).toBe(0);
  });

  it('refuses a value that is not a boolean', async () => {
    const r = await wdtrace('-n', '#pragma D option quiet=maybe\nBEGIN { exit(0) }');
    expect(r.stderr).toContain("failed to set option 'quiet' to 'maybe': Invalid value for specified option");
    expect(r.status).toBe(1);
  });
});

describe('preprocessor options given with -x', () => {
  const stdc = 'BEGIN {\n#ifdef __STDC__\nprintf("%d\\n", __STDC__);\n#else\nprintf("none\\n");\n#endif\nexit(0) }';
  it('-x define is -D and -x cpp is -C', async () => {
    const r = await wdtrace('-x', 'define=probe=BEGIN', '-x', 'cpp', '-qn', 'probe { printf("defined\\n"); exit(0) }');
    expect(r.stdout).toBe('defined\n\n');
    expect(r.status).toBe(0);
  });
  it('-x stdc sets __STDC__ as dt_preproc does: 0 by default and in a and t, 1 in c, undefined in s', async () => {
    for (const [mode, want] of [[undefined, '0'], ['a', '0'], ['t', '0'], ['c', '1'], ['s', 'none']] as const) {
      const r = await wdtrace('-C', ...(mode ? ['-x', `stdc=${mode}`] : []), '-qn', stdc);
      expect([mode, r.stdout]).toEqual([mode, `${want}\n\n`]);
    }
  });
  it('refuses an unknown -x stdc mode', async () => {
    const r = await wdtrace('-C', '-x', 'stdc=q', '-qn', stdc);
    expect(r.stderr).toBe('dtrace: failed to set -x stdc: Invalid value for specified option\n');
    expect(r.status).not.toBe(0);
  });
});
