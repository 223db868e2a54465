import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.js';

const script = (name: string) => fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));

async function wdtrace(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await main(['node', 'wdtrace', ...args], { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { status, stdout, stderr };
}

describe('tst.printf-sign: integer conversions follow the argument type like dt_printf.c', () => {
  it('prints signed, unsigned, narrow and wide arguments byte for byte', async () => {
    const r = await wdtrace('-s', script('tst.printf-sign.d'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '255 65535 -1 -1\n' +
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
    expect(r.stderr).toBe("dtrace: script '" + script('tst.print.d') + "' matched 1 probe\n");
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
