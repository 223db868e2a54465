import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const script = (name: string) => fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));


describe('tst.printf-sign: integer conversions follow the argument type like dt_printf.c', () => {
  it('prints signed, unsigned, narrow and wide arguments byte for byte', async () => {
    const r = await wdtrace('-s', script('tst.printf-sign.d'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '-1 -1 -1 -1\n' +
        '4294967295 18446744073709551615 200\n' +
        '-1 -2 -3\n' +
        '4294967295 18446744073709551615 ffffffff ff FFFE 177777\n' +
        '-5 18446744073709551615 ffffffffffffffff -3 fffd\n' +
        'ABC|  D|E  |\n' +
        '[7     ] [8   ] [009]\n' +
        '4294967295 1\n' +
        '-2 -5 fffffffffffffffb\n' +
        '\n',
    );
    expect(r.status).toBe(0);
  });
});

describe('tst.print: print() by D type like dtrace_print', () => {
  it('prints integers, strings, chars and a struct after the probe line', async () => {
    const r = await wdtrace('-s', script('tst.print.d'));
    expect(r.stderr).toBe("dtrace: script '" + script('tst.print.d') + "' matched 2 probes\n");
    expect(r.stdout).toBe(
      'CPU     ID                    FUNCTION:NAME\n' +
        '  0      1                           :BEGIN int 0x2a\n' +
        'string "text"\n' +
        "char 'q'\n" +
        'struct pair {\n' +
        '    int a = 0xfffffffe\n' +
        "    char c = 'x'\n" +
        '    uint64_t big = 0\n' +
        '    char [8] name = [ "hi" ]\n' +
        '    short [3] arr = [ 0, 0x5, 0 ]\n' +
        '}\n' +
        '  0      1                           :BEGIN \n' +
        '\n',
    );
  });
  it('prints translated structures member by member, nested ones indented', async () => {
    const r = await wdtrace('-qn', 'BEGIN { print(curpsinfo->pr_start); print(curlwpsinfo->pr_name); exit(0); }');
    expect(r.stdout).toBe('timestruc_t {\n    time_t tv_sec = 0\n    long tv_nsec = 0\n}char [16] ""\n\n');
  });
});

describe('tst.aggrate: printa() prints the last aggregation snapshot, taken every aggrate of virtual time', () => {
  const prog = 'tick-100ms { @c = count(); } tick-1s { printa("%@d\\n", @c); } tick-3s { exit(0); }';
  it('snapshots at the default 1s with the buffer switch', async () => {
    const r = await wdtrace('--run-for', '10s', '-q', '-n', prog);
    expect(r.stdout).toBe('10\n20\n30\n\n');
  });
  it('lags behind between snapshots of a slower aggrate', async () => {
    // Snapshots at 0.3s, 0.6s, 0.9s ...: the printa() consumed at 1s sees the one of 0.9s.
    const r = await wdtrace('--run-for', '10s', '-q', '-x', 'aggrate=300ms', '-n', prog);
    expect(r.stdout).toBe('9\n18\n30\n\n');
  });
  it('prints nothing before the first snapshot after BEGIN, and the final output takes one regardless of aggrate', async () => {
    const r = await wdtrace('--run-for', '10s', '-q', '-x', 'aggrate=10s', '-n', prog);
    expect(r.stdout).toBe('\n');
    const f = await wdtrace('--run-for', '10s', '-q', '-x', 'aggrate=10s', '-n', 'tick-100ms { @c = count(); } tick-1s { exit(0); }');
    expect(f.stdout).toBe('\n' + ' '.repeat(15) + '10\n');
  });
  it('consumes printa() records every switchrate, printing the snapshot of that moment', async () => {
    // Both printa() firings of 1s and 2s are consumed at 2s, after that moment's snapshot.
    const r = await wdtrace('--run-for', '10s', '-q', '-x', 'switchrate=2s', '-x', 'aggrate=100ms', '-n', prog);
    expect(r.stdout).toBe('20\n20\n30\n\n');
  });
});

describe('tst.aggrate-merge: snapshots merge every aggregating function exactly', () => {
  it('gives the same final output whether the values came in one snapshot or twenty', async () => {
    const prog = 'BEGIN { i = 0; } tick-50ms { @n = min(i); @x = max(i); @a = avg(i); @s = stddev(i); @q = quantize(i); @l = lquantize(i, 0, 20, 4); @ll = llquantize(i, 10, 0, 2, 10); @c[i % 3] = count(); @m = sum(-i); i++; } tick-1s { exit(0); }';
    const one = await wdtrace('--run-for', '5s', '-q', '-x', 'aggrate=10s', '-n', prog);
    const many = await wdtrace('--run-for', '5s', '-q', '-x', 'aggrate=50ms', '-n', prog);
    expect(one.stderr).toBe('');
    expect(many.stdout).toBe(one.stdout);
    expect(one.stdout).toContain('\n        0                7\n');
  });
});

describe('err.liberr: library-side failures and drop messages worded like libdtrace', () => {
  it('reports a failed setopt() and freopen() against the enabled probe (dt_handle_liberr)', async () => {
    const r = await wdtrace('--run-for', '1s', '-qw', '-n', 'BEGIN { freopen("/nonexistent-dir/out"); setopt("nosuchoption", "v"); printf("still here\\n"); exit(0); }');
    expect(r.stdout).toBe('still here\n\n');
    expect(r.stderr).toBe(
      'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn\'t freopen() "/nonexistent-dir/out": No such file or directory\n' +
        // dt_setopt's message carries its own newline before dt_handle_liberr's.
        'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn\'t set option "nosuchoption" to "v": Invalid option name\n\n',
    );
  });
  it('tags drop messages under -x droptags', async () => {
    const r = await wdtrace('--run-for', '2s', '-q', '-x', 'droptags', '-x', 'dynvarsize=100', '-n', 'BEGIN { i = 0; } tick-10ms { a[i++] = 1; } tick-1s { exit(0); }');
    expect(r.stderr).toMatch(/^dtrace: \[DTRACEDROP_DYNAMIC\] \d+ dynamic variable drops\n$/);
  });
});

describe('tst.actions-norecord: actions dtrace(1) gives no record print nothing', () => {
  it('prints nothing for chill(), raise(), stop(), breakpoint() and panic()', async () => {
    const r = await wdtrace('--run-for', '1s', '-w', '-n', 'BEGIN { chill(10); raise(9); stop(); breakpoint(); panic(); printf("x"); exit(0); }');
    expect(r.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN x\n\n');
  });
});

describe('err.output: -o that cannot be opened', () => {
  it('fails before enabling anything, with fatal()\'s wording and status 1', async () => {
    const r = await wdtrace('-o', '/nonexistent-dir/out.txt', '-n', 'BEGIN', '--run-for', '0s');
    expect(r).toEqual({ status: 1, stdout: '', stderr: "dtrace: failed to open output file '/nonexistent-dir/out.txt': No such file or directory\n" });
  });
});

describe('tst.ftruncate: ftruncate() empties the output file', () => {
  it('keeps only what is printed after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wdtrace-ftruncate-'));
    try {
      const file = join(dir, 'out.txt');
      const r = await wdtrace('-o', file, '--run-for', '1s', '-qn', 'BEGIN { printf("one\\n"); ftruncate(); printf("two\\n"); exit(0); }');
      expect(r.status).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('two\n\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tst.subr-strings: substr(), index(), rindex() and path subroutines at their edges', () => {
  it('computes what dtrace_dif_subr computes', async () => {
    const r = await wdtrace('-s', script('tst.subr-strings.d'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('[ell][lo][][hell][][he][]\n[2][3][-1][5][3][2][0][-1]\n[libc.so.1][/][.][foo][a]\n[/bar/baz/x][a/c][llo]\n[/][./a][a/.][/a/][../a][a][/]\n[/][.][/][/a]\n\n');
  });
});

describe('tst.subr-lltostr: lltostr() prefixes as DIF_SUBR_LLTOSTR', () => {
  it('writes 0 once for zero, 0 before octal digits and 0x before hexadecimal ones', async () => {
    const r = await wdtrace('-qn', 'BEGIN { printf("[%s][%s][%s][%s][%s][%s][%s][%s]\\n", lltostr(0, 8), lltostr(8, 8), lltostr(0, 16), lltostr(255, 16), lltostr(0, 2), lltostr(5, 2), lltostr(-1, 16), lltostr(-42)); exit(0); }');
    expect(r.stdout).toBe('[0][010][0x0][0xff][0][101][0xffffffffffffffff][-42]\n\n');
  });
});

describe('tst.subr-strtoll: strtoll(), toupper() and tolower() as dtrace_strtoll and the kernel loops', () => {
  it('takes 0x only in base 16, skips blanks, wraps and touches ASCII letters only', async () => {
    const r = await wdtrace('-qn', 'BEGIN { printf("[%d][%d][%d][%d][%d][%d][%d][%s][%s]\\n", strtoll("0x10"), strtoll("0x10", 16), strtoll(" \\t-42abc"), strtoll("ff", 16), strtoll("0xg", 16), strtoll("z", 36), strtoll("+7"), toupper("aßz"), tolower("AZ")); exit(0); }');
    expect(r.stdout).toBe('[0][16][-42][255][0][35][7][A\u00dfZ][az]\n\n');
  });
  it('faults on a base outside 2 to 36', async () => {
    const r = await wdtrace('--run-for', '1s', '-qn', 'BEGIN { x = strtoll("1", 37); } BEGIN { exit(0); }');
    expect(r.stderr).toBe('dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): illegal operation in action #1 at DIF offset 20\n');
  });
});

describe('tst.trace-bytes: trace() of byte records as dt_print_bytes', () => {
  it('pads an unterminated printable array to 33 columns even under -q, and dumps an empty string as bytes', async () => {
    const r = await wdtrace('-qn', 'char a[5]; BEGIN { a[0] = 0x61; a[1] = 0x62; a[2] = 0x63; a[3] = 0x64; a[4] = 0x65; trace(a); printf("|\\n"); exit(0); }');
    expect(r.stdout).toBe('  abcde' + ' '.repeat(28) + '|\n\n');
    const e = await wdtrace('-x', 'strsize=16', '-qn', 'BEGIN { trace(""); exit(0); }');
    expect(e.stdout).toBe('\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n         0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n\n');
  });
});

describe('tst.normalize-sign: normalized 64-bit values divide as unsigned (dt_print_datum)', () => {
  it('prints a negative sum normalized as dtrace(1) does', async () => {
    const r = await wdtrace('-qn', 'BEGIN { @a = sum(-10); @b = sum(10); normalize(@a, 2); normalize(@b, 2); exit(0); }');
    expect(r.stdout).toBe('\n 9223372036854775803\n                5\n');
  });
  it('divides %@ values as the conversion reads them: %d unsigned (pfprint_dint), %i signed; avg() unsigned', async () => {
    const r = await wdtrace('-qn', 'BEGIN { @a = sum(-10); @c = count(); @c = count(); @c = count(); @c = count(); normalize(@a, 2); normalize(@c, 2); @v = avg(-5); @v = avg(-5); printa("%@d %@i|", @a); printa("%@d|", @c); printa("%@d\\n", @v); exit(0); }');
    expect(r.stdout).toBe('9223372036854775803 -5|2|9223372036854775803\n\n');
  });
});

describe('tst.printf-dint-signed: %d of char and short takes the sign of the type', () => {
  it('prints a signed char or short signed and an unsigned one unsigned (pfcheck_dint, pfprint_sint/uint)', async () => {
    const r = await wdtrace('-qn', 'signed char c; unsigned char u; BEGIN { c = 0xfe; u = -2; printf("%d %d %d %d\\n", c, u, (short)0xfffd, (unsigned short)-3); exit(0); }');
    expect(r.stdout).toBe('-2 254 -3 65533\n\n');
  });
});

describe('err.strjoin: a strjoin() longer than strsize', () => {
  it('faults with out of scratch space (no address in the message)', async () => {
    const r = await wdtrace('-x', 'strsize=8', '--run-for', '1s', '-qn', 'BEGIN { printf("[%s]", strjoin("abc", "defg")); } BEGIN { printf("[%s]\\n", strjoin("abcd", "efgh")); } BEGIN { exit(0); }');
    expect(r.stdout).toBe('[abcdefg]\n');
    expect(r.stderr).toBe('dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): out of scratch space in action #1 at DIF offset 20\n');
  });
});

describe('tst.subr-net: inet_ntop(), inet_ntoa6(), getmajor() and getminor()', () => {
  it('formats addresses as DIF_SUBR_INET_NTOP does and splits dev_t by the data model', async () => {
    const r = await wdtrace('-qn', 'BEGIN { this->a = (uint8_t *)alloca(16); this->a[10] = 0xff; this->a[11] = 0xff; this->a[12] = 10; this->a[15] = 1; printf("[%s][%s]\\n", inet_ntop(10, this->a), inet_ntoa6(this->a)); this->a[0] = 0xfe; this->a[1] = 0x80; this->a[10] = 0; printf("[%s][%s]\\n", inet_ntop(26, this->a), inet_ntop(2, this->a + 12)); printf("%d %d\\n", getmajor(0x500000003), getminor(0x500000003)); exit(0); }');
    expect(r.stdout).toBe('[::ffff:10.0.0.1][10.0.0.1]\n[fe80::ff:a00:1][10.0.0.1]\n5 3\n\n');
  });
});
