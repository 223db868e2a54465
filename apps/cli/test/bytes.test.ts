// D strings are bytes: escapes are single bytes, UTF-8 text passes through
// as the same bytes, and stdout, -o files and freopen() files get exactly
// the bytes the program printed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wdtraceBytes } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'wdtrace-bytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('string escapes and literals', () => {
  it('make "\\xe9" and "\\351" the single byte 0xe9 in printf formats, strings and trace()', async () => {
    const r = await wdtraceBytes('-q', '-n', 'BEGIN { printf("\\xe9\\351|%s|%S|%c|", "\\xe9\\x41", "\\xe9\\001", 0xe9); printf("%d %d\\n", strlen("\\xe9"), strlen("\\351\\351")); exit(0); }');
    expect(r.stderr.toString()).toBe('');
    expect(hex(r.stdout)).toBe(hex(Buffer.concat([Buffer.from([0xe9, 0xe9, 0x7c, 0xe9, 0x41, 0x7c]), Buffer.from('\\351\\001|'), Buffer.from([0xe9, 0x7c]), Buffer.from('1 2\n\n')])));
  });
  it('decode escapes as stresc2chr: every hex digit of \\x, unknown escapes keep their backslash, a NUL ends a format', async () => {
    const r = await wdtraceBytes('-q', '-n', 'BEGIN { printf("[\\x41BC][\\q\\\'][\\\"\\\\][\\101\\1011]\\n"); printf("%d %d|", strlen("\\x4142"), \'\\x4142\'); printf("cut\\x here"); exit(0); }');
    expect(r.stderr.toString()).toBe('');
    expect(hex(r.stdout)).toBe(hex(Buffer.concat([Buffer.from('['), Buffer.from([0xbc]), Buffer.from('][\\q\\\'][\"\\][AA1]\n1 66|cut\n')])));
  });
  it('pass a UTF-8 literal through unchanged, its bytes counted by strlen()', async () => {
    const r = await wdtraceBytes('-q', '-n', 'BEGIN { printf("é→%s|%d|%s\\n", "ü", strlen("é→"), substr("é", 1)); exit(0); }');
    expect(hex(r.stdout)).toBe(hex(Buffer.concat([Buffer.from('é→ü|5|'), Buffer.from([0xa9]), Buffer.from('\n\n')])));
  });
  it('print a trace() of a string with bytes beyond ASCII as dtrace does an unprintable one: a dump', async () => {
    const r = await wdtraceBytes('-q', '-n', 'BEGIN { trace("é"); exit(0); }');
    expect(r.stdout.toString('latin1')).toContain('         0: c3 a9 00 00');
  });
});

describe('script files and output files', () => {
  it('read a script\'s bytes as they are, invalid UTF-8 included, and write them to -o byte for byte', async () => {
    const script = join(dir, 'raw.d');
    // A literal holding a lone 0xe9 byte (not UTF-8) and a UTF-8 one.
    writeFileSync(script, Buffer.concat([Buffer.from('BEGIN { printf("%s|'), Buffer.from([0xe9]), Buffer.from('|ü\\n", "'), Buffer.from([0xff, 0x80]), Buffer.from('"); exit(0); }\n')]));
    const out = join(dir, 'out.txt');
    const r = await wdtraceBytes('-q', '-o', out, '-s', script);
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBe(0);
    expect(hex(readFileSync(out))).toBe(hex(Buffer.concat([Buffer.from([0xff, 0x80, 0x7c, 0xe9]), Buffer.from('|ü\n\n')])));
  });
  it('write freopen() output byte for byte', async () => {
    const file = join(dir, 'freopen.txt');
    const r = await wdtraceBytes('-w', '-q', '-n', `BEGIN { freopen("${file}"); printf("\\xe9é"); freopen(""); printf("back\\n"); exit(0); }`);
    expect(r.stdout.toString()).toBe('back\n\n');
    expect(hex(readFileSync(file))).toBe(hex(Buffer.from([0xe9, 0xc3, 0xa9])));
  });
  it('reports a compile error quoting the program\'s UTF-8 unchanged', async () => {
    const r = await wdtraceBytes('-n', 'BEGIN { printf("é", ); }');
    expect(r.status).toBe(1);
    expect(r.stderr.toString('utf8')).toContain("invalid probe specifier BEGIN { printf(\"é\", ); }");
  });
});
