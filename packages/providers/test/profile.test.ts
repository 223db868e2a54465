// The profile provider's probe names: every unit illumos profile.c takes, and
// the rates it refuses.
import { describe, expect, it } from 'vitest';
import { parseProfileName } from '../src/index.js';

describe('profile probe names', () => {
  it('accepts every unit the profile provider does', () => {
    expect(parseProfileName('tick-1s')?.interval).toBe(1_000_000_000n);
    expect(parseProfileName('profile-97')?.interval).toBe(10309278n);
    expect(parseProfileName('tick-10ms')?.interval).toBe(10_000_000n);
    expect(parseProfileName('tick-5000hz')?.interval).toBe(200_000n);
    expect(parseProfileName('tick-2min')?.interval).toBe(120_000_000_000n);
    expect(parseProfileName('tick-1day')?.interval).toBe(86_400_000_000_000n);
    expect(parseProfileName('tick-100us')).toBeUndefined(); // below profile_interval_min
    expect(parseProfileName('tick-1fortnight')).toBeUndefined();
  });
});
