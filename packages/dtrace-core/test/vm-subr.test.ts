import { describe, expect, it } from 'vitest';
import { inet6String } from '../src/framework/subr.js';

const addr = (...groups: number[]): Uint8Array => {
  const b = new Uint8Array(16);
  groups.forEach((g, i) => {
    b[i * 2] = g >> 8;
    b[i * 2 + 1] = g & 0xff;
  });
  return b;
};

describe('inet_ntop IPv6 text (DIF_SUBR_INET_NTOP)', () => {
  it('compresses the first longest zero run, single groups included', () => {
    expect(inet6String(addr(0, 0, 0, 0, 0, 0, 0, 0), false)).toBe('::');
    expect(inet6String(addr(0, 0, 0, 0, 0, 0, 0, 1), false)).toBe('::1');
    expect(inet6String(addr(0xfe80, 0, 0, 0, 0x214, 0x4fff, 0xfe0b, 0x76c8), false)).toBe('fe80::214:4fff:fe0b:76c8');
    expect(inet6String(addr(1, 0, 2, 0, 0, 3, 4, 5), false)).toBe('1:0:2::3:4:5');
    expect(inet6String(addr(1, 0, 2, 3, 4, 5, 6, 7), false)).toBe('1::2:3:4:5:6:7');
    expect(inet6String(addr(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), false)).toBe('2001:db8::');
  });
  it('writes IPv4-compatible and mapped addresses with a dotted tail (alone for inet_ntoa6)', () => {
    expect(inet6String(addr(0, 0, 0, 0, 0, 0, 0xc000, 0x0201), false)).toBe('::192.0.2.1');
    expect(inet6String(addr(0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201), true)).toBe('192.0.2.1');
  });
});
