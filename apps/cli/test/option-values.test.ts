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
    expect(r.stderr).toContain("failed to set option 'quiet': Invalid value for specified option");
    expect(r.status).toBe(1);
  });
});
