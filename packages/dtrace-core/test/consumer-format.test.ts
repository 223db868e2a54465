import { describe, expect, it } from 'vitest';
import { formatPrintf, parsePrintfFormat, printfArgumentCount, escapeString, formatWalltime, type Datum, PrintfFormatError } from '../src/consumer/printf.js';
import { NO_SYMBOLS } from '../src/framework/machine.js';
import fc from 'fast-check';
import { quantizeBucket, quantizeBucketValue, llquantizeBucketCount } from '../src/framework/buckets.js';
import { printBytes, printLquantize, printLlquantize, printQuantize, stddevValue, averageValue, traceInteger } from '../src/consumer/aggprint.js';
import { lquantizeArg, llquantizeArg } from '../src/program/actions.js';

const int = (v: bigint | number, size = 8, signed = true): Datum => ({ type: 'int', value: BigInt(v), size, signed });
const str = (s: string): Datum => ({ type: 'string', value: s });
const pf = (fmt: string, ...args: Datum[]): string => formatPrintf(parsePrintfFormat(fmt), args, { symbols: NO_SYMBOLS });

describe('printf integer signedness and width (pfprint_sint/uint/dint)', () => {
  it('%d takes the sign from the D type: signed records sign-extend, unsigned ones zero-extend', () => {
    // pfcheck_dint sets DT_PFCONV_SIGNED for a signed argument, so pfprint_dint takes pfprint_sint: (char)-1 and (short)-1 print -1.
    expect(pf('%d %d %d %d', int(0xff, 1), int(0xffff, 2), int(0xffffffff, 4), int(-1n, 8))).toBe('-1 -1 -1 -1');
    // An unsigned char or short takes pfprint_uint.
    expect(pf('%d %d', int(0xff, 1, false), int(0xfffe, 2, false))).toBe('255 65534');
    // An unsigned type turns %d into %u: 32-bit and 64-bit values print unsigned.
    expect(pf('%d %d', int(0xffffffff, 4, false), int(-1n, 8, false))).toBe('4294967295 18446744073709551615');
    expect(pf('%5d|%-5d|%05d', int(0xff, 1), int(0xff, 1, false), int(-3, 4))).toBe('   -1|255  |-0003');
  });
  it('%i sign-extends every record size', () => {
    expect(pf('%i %i %i %i', int(0xff, 1), int(0xfffe, 2), int(0xfffffffd, 4), int(-4n, 8))).toBe('-1 -2 -3 -4');
    expect(pf('%i', int(0xffffffff, 4, false))).toBe('-1');
  });
  it('%u, %o, %x and %X read 1, 2 and 4-byte records as unsigned int and 8-byte ones as unsigned long long', () => {
    expect(pf('%u %u %u', int(-1n, 4), int(-1n, 8), int(0x80, 1))).toBe('4294967295 18446744073709551615 128');
    expect(pf('%x %x %x %X %o', int(0xff, 1), int(0xffffffff, 4), int(-1n, 8), int(-2n, 4), int(-1n, 2))).toBe('ff ffffffff ffffffffffffffff FFFFFFFE 177777');
    expect(pf('%#x %#o %#X', int(0, 4), int(0, 4), int(0xab, 1))).toBe('0 0 0XAB');
  });
  it('%ld, %lld and %lu print 64-bit records; %c prints the low byte of a char, short or int', () => {
    expect(pf('%ld %lld %lu %lx', int(-5n, 8), int(-6n, 8), int(-1n, 8), int(-1n, 8))).toBe('-5 -6 18446744073709551615 ffffffffffffffff');
    expect(pf('%c%c%c|%3c|%-3c|', int(0x41, 1), int(0x142, 2), int(0x43, 4), int(0x44, 4), int(0x45, 4))).toBe('ABC|  D|E  |');
  });
  it('%@ reads count() as unsigned and the other aggregations as signed', () => {
    const pieces = parsePrintfFormat('%@d %@x\n');
    expect(formatPrintf(pieces, [], { symbols: NO_SYMBOLS }, { type: 'aggregation', rendered: '', value: -1n, signed: false })).toBe('18446744073709551615 ffffffffffffffff\n');
    expect(formatPrintf(pieces, [], { symbols: NO_SYMBOLS }, { type: 'aggregation', rendered: '', value: -1n })).toBe('-1 ffffffffffffffff\n');
  });
  it('takes a dynamic width from any record size, a negative one left-justifying', () => {
    expect(pf('[%*d]', int(0xfb, 1), int(7, 4))).toBe('[7    ]');
    expect(pf('[%*d]', int(-4n, 8), int(7, 4))).toBe('[7   ]');
  });
  it('%k prints a stack with no indent, a left-justified width as the indent, a plain width padding each frame (pfprint_stack)', () => {
    const st: Datum = { type: 'stack', frames: ['kernel`a+0x1', 'kernel`b'] };
    expect(pf('[%k]', st)).toBe('[\nkernel`a+0x1\nkernel`b\n]');
    expect(pf('[%-4k]', st)).toBe('[\n    kernel`a+0x1\n    kernel`b\n]');
    expect(pf('[%14k]', st)).toBe('[\n  kernel`a+0x1\n      kernel`b\n]');
    expect(pf('[%k]', { type: 'stack', frames: [], silent: true })).toBe('[]');
  });
  it('rejects conversions libdtrace does not define (%hhd, %qd) at parse time', () => {
    expect(() => parsePrintfFormat('%hhd')).toThrow('format conversion #1 is undefined: %hhd');
    expect(() => parsePrintfFormat('%d %lf')).toThrow('format conversion #2 is undefined: %lf');
  });
});

describe('printf conversions (dt_printf.c semantics)', () => {
  it('formats integers with flags, width and precision like C printf', () => {
    expect(pf('%d|%5d|%-5d|%05d|%+d|% d', int(42), int(42), int(42), int(42), int(42), int(42))).toBe('42|   42|42   |00042|+42| 42');
    expect(pf('%x %X %#x %#o %o', int(255), int(255), int(255), int(8), int(8))).toBe('ff FF 0xff 010 10');
    expect(pf('%.3d|%8.3d|%u', int(7), int(-7), int(-1, 4, true))).toBe('007|    -007|4294967295');
    expect(pf('%d', int(-1, 8, false))).toBe('18446744073709551615');
    expect(pf('%lld %llx', int(-2), int(-1))).toBe('-2 ffffffffffffffff');
    expect(pf('%hd %hx %hu', int(0xfffe, 2), int(0xfffe, 2), int(0xfffe, 2))).toBe('-2 fffe 65534');
    expect(pf('%c%c', int(104, 1), int(105, 4))).toBe('hi');
    expect(pf('%p', int(0xfffffe0000001234n))).toBe('fffffe0000001234');
    expect(pf('%?p|', int(0x1234))).toBe('            1234|');
  });
  it('formats strings, escapes and dynamic width/precision', () => {
    expect(pf('[%s][%10s][%-10s][%.3s]', str('dtrace'), str('dtrace'), str('dtrace'), str('dtrace'))).toBe('[dtrace][    dtrace][dtrace    ][dtr]');
    expect(pf('[%*s][%-*.*s]', int(8, 4), str('ab'), int(6, 4), int(2, 4), str('abcdef'))).toBe('[      ab][ab    ]');
    expect(pf('%S', str('a\tb\n"c"\x01'))).toBe('a\\tb\\n\\"c\\"\\001');
    expect(escapeString('\\')).toBe('\\\\');
    // strchr2esc: NUL as \0, everything outside '!'..'~' but the space in octal, bytes beyond ASCII included.
    expect(escapeString('\0 ~\x7f\xe9\xff')).toBe('\\0 ~\\177\\351\\377');
    expect(pf('%C|%C', int(0, 1), int(0xe9, 1))).toBe('\\0|\\351');
    expect(pf('100%%')).toBe('100%');
  });
  it('formats floating conversions', () => {
    expect(pf('%f %.2f %e %E %g %G', { type: 'float', value: 3.5, size: 8 }, { type: 'float', value: 3.14159, size: 8 }, { type: 'float', value: 12345.678, size: 8 }, { type: 'float', value: 0.00012, size: 8 }, { type: 'float', value: 100000, size: 8 }, { type: 'float', value: 1e-5, size: 8 })).toBe(
      '3.500000 3.14 1.234568e+04 1.200000E-04 100000 1E-05',
    );
    expect(pf('%g|%g', { type: 'float', value: 1234567, size: 8 }, { type: 'float', value: 0.5, size: 8 })).toBe('1.23457e+06|0.5');
  });
  // %Y and %T are local time (the CLI tests run them under other TZ values); in UTC they read as below.
  it.runIf(new Date(1_700_000_000_000).getTimezoneOffset() === 0 && new Date(1_735_603_200_000).getTimezoneOffset() === 0)('formats %Y and %T walltime in UTC', () => {
    expect(formatWalltime(1_700_000_000_000_000_000n)).toBe('2023 Nov 14 22:13:20');
    expect(pf('%Y', int(1_700_000_000_000_000_000n))).toBe('2023 Nov 14 22:13:20');
    // ctime's day is space-padded.
    expect(pf('%Y', int(1_699_000_000_000_000_000n))).toBe('2023 Nov  3 08:26:40');
    // %T is "%a, %d %b %G %T %Z": %G is the ISO week-based year (2024-12-31 is in week 1 of 2025).
    expect(pf('%T', int(1_700_000_000_000_000_000n))).toBe('Tue, 14 Nov 2023 22:13:20 UTC');
    expect(pf('%T', int(1_735_603_200_000_000_000n))).toBe('Tue, 31 Dec 2025 00:00:00 UTC');
  });
  it('prints %I and %P in numeric form, as illumos when the name lookups fail', () => {
    // pfprint_inetaddr prints the string itself (up to its NUL) when no host name is found.
    expect(pf('[%I] [%I] [%20I]', str('192.168.1.7'), { type: 'bytes', value: new Uint8Array([0x3a, 0x3a, 0x31, 0, 0x41]) }, str('fe80::1'))).toBe('[192.168.1.7] [::1] [             fe80::1]');
    // pfprint_port: snprintf("%d") of the uint16_t record when getservbyport_r finds no service.
    expect(pf('%P %P %-6P|', int(22, 2), int(0xffff, 2), int(80, 2))).toBe('22 65535 80    |');
  });
  it('formats %a symbols', () => {
    const symbols = { lookup: (a: bigint) => (a >= 0x1000n && a < 0x1100n ? { module: 'kernel', symbol: { name: 'main', value: 0x1000n } } : a < 0x2000n ? { module: 'kernel' } : undefined) };
    // dtrace_addr2str: no module fallback, unlike stack frames.
    expect(formatPrintf(parsePrintfFormat('%a %a %a %a'), [int(0x1000), int(0x1010), int(0x1200), int(0x3000)], { symbols })).toBe('kernel`main kernel`main+0x10 0x1200 0x3000');
  });
  it('counts arguments and rejects bad formats with libdtrace wording', () => {
    expect(printfArgumentCount(parsePrintfFormat('%d %*s %% %@d'))).toBe(3);
    expect(() => parsePrintfFormat('%q')).toThrow('format conversion #1 is undefined: %q');
    expect(() => parsePrintfFormat('abc %')).toThrow('format conversion #1 name expected before end of format string');
    expect(() => parsePrintfFormat('%1$d')).toThrow(PrintfFormatError);
    expect(() => parsePrintfFormat('%d %5%')).toThrow('format conversion #2 cannot be combined with other format flags: %%');
  });
  it('uses the aggregation value for %@', () => {
    const pieces = parsePrintfFormat('%-10s %@8d\n');
    expect(formatPrintf(pieces, [str('sshd')], { symbols: NO_SYMBOLS }, { type: 'aggregation', rendered: '', value: 12n })).toBe('sshd             12\n');
  });
});

function buckets(entries: Record<number, number>): bigint[] {
  const d = new Array<bigint>(127).fill(0n);
  for (const [k, v] of Object.entries(entries)) d[quantizeBucket(BigInt(k))] += BigInt(v);
  return d;
}

describe('aggregation layouts (dt_consume.c)', () => {
  it('prints quantize() like dtrace(1)', () => {
    expect(printQuantize(buckets({ 1: 1 }))).toBe(
      '\n           value  ------------- Distribution ------------- count    \n' +
        '               0 |                                         0        \n' +
        '               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n' +
        '               2 |                                         0        \n',
    );
    expect(printQuantize(buckets({ 4: 3, 5: 1, 64: 4 }))).toBe(
      '\n           value  ------------- Distribution ------------- count    \n' +
        '               2 |                                         0        \n' +
        '               4 |@@@@@@@@@@@@@@@@@@@@                     4        \n' +
        '               8 |                                         0        \n' +
        '              16 |                                         0        \n' +
        '              32 |                                         0        \n' +
        '              64 |@@@@@@@@@@@@@@@@@@@@                     4        \n' +
        '             128 |                                         0        \n',
    );
    // No data at all: the buckets around zero.
    expect(printQuantize(new Array<bigint>(127).fill(0n)).split('\n').slice(2, 5).map((l) => l.trim().split(/\s+/)[0])).toEqual(['-1', '0', '1']);
  });
  it('places values in power-of-two buckets', () => {
    expect(quantizeBucket(0n)).toBe(63);
    expect(quantizeBucket(1n)).toBe(64);
    expect(quantizeBucket(3n)).toBe(65);
    expect(quantizeBucket(4n)).toBe(66);
    expect(quantizeBucket(-1n)).toBe(62);
    expect(quantizeBucket(-5n)).toBe(60);
    // The ends: 2^62 and above in the top bucket, -2^62 and below (INT64_MIN too) in the lowest.
    expect(quantizeBucket(0x7fffffffffffffffn)).toBe(126);
    expect(quantizeBucket(1n << 62n)).toBe(126);
    expect(quantizeBucket(-(1n << 62n) + 1n)).toBe(1);
    expect(quantizeBucket(-(1n << 62n))).toBe(0);
    expect(quantizeBucket(-(1n << 63n))).toBe(0);
    expect(quantizeBucket(1n << 63n)).toBe(0);
  });
  it('places every int64 value in the bucket whose bounds hold it, as dtrace_aggregate_quantize', () => {
    const int64 = fc.oneof(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.integer({ min: 0, max: 63 }).map((k) => 1n << BigInt(k)), fc.integer({ min: 0, max: 63 }).map((k) => -(1n << BigInt(k))));
    fc.assert(
      fc.property(int64, fc.integer({ min: -1, max: 1 }), (x, d) => {
        const v = BigInt.asIntN(64, x + BigInt(d));
        const b = quantizeBucket(v);
        expect(b).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThan(127);
        // The lowest bucket holds every value at or below its own; the others [BUCKETVAL(b), BUCKETVAL(b+1)) or (BUCKETVAL(b-1), BUCKETVAL(b)].
        if (v > 0n) {
          expect(v >= quantizeBucketValue(b)).toBe(true);
          if (b < 126) expect(v < quantizeBucketValue(b + 1)).toBe(true);
        } else if (v < 0n) {
          expect(v <= quantizeBucketValue(b)).toBe(true);
          if (b > 0) expect(v > quantizeBucketValue(b - 1)).toBe(true);
        } else {
          expect(b).toBe(63);
        }
        // Given as uint64_t (as DIF registers hold it), the same bucket.
        expect(quantizeBucket(BigInt.asUintN(64, v))).toBe(b);
      }),
      { numRuns: 400 },
    );
  });
  it('prints negative and mixed histograms with centre lines', () => {
    const d = new Array<bigint>(127).fill(0n);
    d[quantizeBucket(1n)] = -2n;
    d[quantizeBucket(4n)] = 2n;
    const lines = printQuantize(d).split('\n');
    expect(lines[3]).toBe('               1           @@@@@@@@@@|                     -2       ');
    expect(lines[5]).toBe('               4                     |@@@@@@@@@@           2        ');
    const n = new Array<bigint>(127).fill(0n);
    n[quantizeBucket(1n)] = -4n;
    expect(printQuantize(n).split('\n')[3]).toBe('               1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -4       ');
  });
  it('prints lquantize() with underflow and overflow rows', () => {
    const data = [lquantizeArg(0, 10, 10), 0n, 0n, 2n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 1n];
    expect(printLquantize(data)).toBe(
      '\n           value  ------------- Distribution ------------- count    \n' +
        '               0 |                                         0        \n' +
        '              10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              2        \n' +
        '              20 |                                         0        \n' +
        '              30 |                                         0        \n' +
        '              40 |                                         0        \n' +
        '              50 |                                         0        \n' +
        '              60 |                                         0        \n' +
        '              70 |                                         0        \n' +
        '              80 |                                         0        \n' +
        '              90 |                                         0        \n' +
        '          >= 100 |@@@@@@@@@@@@@                            1        \n',
    );
    const under = [lquantizeArg(5, 2, 1), 3n, 0n, 0n, 0n];
    expect(printLquantize(under).split('\n')[2]).toBe('             < 5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        ');
  });
  it('prints llquantize() buckets per order of magnitude', () => {
    const n = llquantizeBucketCount(10, 0, 1, 10);
    expect(n).toBe(2 + 9 + 9);
    const data = [llquantizeArg(10, 0, 1, 10), ...new Array<bigint>(n).fill(0n)];
    data[1 + 3] = 1n; // value 3
    const out = printLlquantize(data);
    expect(out.split('\n').slice(2, 5)).toEqual([
      '               2 |                                         0        ',
      '               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        ',
      '               4 |                                         0        ',
    ]);
  });
  it('computes avg and stddev like dt_stddev', () => {
    expect(averageValue([4n, 10n])).toBe(2n);
    // values 2, 4, 4, 4, 5, 5, 7, 9: stddev 2
    expect(stddevValue([8n, 40n, 232n, 0n])).toBe(2n);
  });
  it('prints trace() data and tracemem() dumps', () => {
    expect(traceInteger(5n, 8, false)).toBe('                5');
    expect(traceInteger(5n, 4, false)).toBe('        5');
    expect(traceInteger(5n, 8, true)).toBe('5');
    const s = new Uint8Array(16);
    s.set([104, 105]);
    expect(printBytes(s, -33, false, false)).toBe('  hi                               ');
    expect(printBytes(s, -33, true, false)).toBe('hi');
    expect(printBytes(Uint8Array.from([1, 2, 65]), -33, false, true)).toBe(
      '\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n' + '         0: 01 02 41                                         ..A\n',
    );
  });
});
