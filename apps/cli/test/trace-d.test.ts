import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));
const script = (name: string) => fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));


describe('tst.d-begin: D clauses through the compiler', () => {
  it('prints printf output after the probe line and the aggregations at the end', async () => {
    const r = await wdtrace('-n', 'BEGIN { printf("hello %s %d\\n", "world", 42); @a[probename] = count(); exit(0); }');
    // compile_str crops the reported name at the first '{', '/' or ';'.
    expect(r.stderr).toBe(`dtrace: description 'BEGIN ' matched 1 probe\n`);
    expect(r.stdout).toBe(
      'CPU     ID                    FUNCTION:NAME\n' +
        '  0      1                           :BEGIN hello world 42\n' +
        '\n' +
        '\n' +
        '  BEGIN                                                             1\n',
    );
    expect(r.status).toBe(0);
  });
  it('runs printf conversions and string subroutines like dtrace(1)', async () => {
    const r = await wdtrace('-s', script('tst.printf.d'));
    expect(r.stdout).toBe(
      '[42] [   42] [42   ] [00042] [ff] [0XFF] [10]\n' +
        '[dtrace] [    dtrace] [dtrace    ] [dtr] [z]\n' +
        '[4294967295] [1099511627776] [%] [tab\\there]\n' +
        'dtrace - -:BEGIN\n' +
        'foobar tra libc.so 5\n' +
        '\n',
    );
    expect(r.status).toBe(0);
  });
  it('passes macro arguments to #! scripts', () => {
    const r = spawnSync(process.execPath, [bin, '-s', script('tst.macro-args.d'), 'foo', '7'], { encoding: 'utf8' });
    expect(r.stdout).toBe('foo 7\n\n');
    expect(r.status).toBe(0);
  });
  it('returns exit()\'s status', async () => {
    const r = await wdtrace('-qn', 'tick-1s { exit(3); }');
    expect(r.status).toBe(3);
  });
});

describe('tst.d-aggregations: every aggregating function on the virtual clock', () => {
  it('prints values and histograms byte for byte', async () => {
    const r = await wdtrace('-s', script('tst.aggregations.d'));
    expect(r.stderr).toBe('');
    // Checked by hand: 1..10 gives avg 5 and stddev isqrt(385/10 - 5*5) = 3, as dt_stddev.
    expect(r.stdout).toBe(
      '\n' +
        '  count                                                            10\n' +
        '  sum                                                              55\n' +
        '  min                                                               1\n' +
        '  max                                                              10\n' +
        '  avg                                                               5\n' +
        '  stddev                                                            3\n' +
        '\n' +
        '           value  ------------- Distribution ------------- count    \n' +
        '               0 |                                         0        \n' +
        '               1 |@@@@                                     1        \n' +
        '               2 |@@@@@@@@                                 2        \n' +
        '               4 |@@@@@@@@@@@@@@@@                         4        \n' +
        '               8 |@@@@@@@@@@@@                             3        \n' +
        '              16 |                                         0        \n' +
        '\n' +
        '\n' +
        '           value  ------------- Distribution ------------- count    \n' +
        '             < 0 |                                         0        \n' +
        '               0 |@@@@                                     1        \n' +
        '               2 |@@@@@@@@                                 2        \n' +
        '               4 |@@@@@@@@                                 2        \n' +
        '               6 |@@@@@@@@                                 2        \n' +
        '               8 |@@@@@@@@                                 2        \n' +
        '           >= 10 |@@@@                                     1        \n' +
        '\n' +
        '\n' +
        '           value  ------------- Distribution ------------- count    \n' +
        '             < 1 |                                         0        \n' +
        '               1 |@@@@                                     1        \n' +
        '               2 |@@@@@@@@                                 2        \n' +
        '               4 |@@@@@@@@@@@@@@@@                         4        \n' +
        '               8 |@@@@@@@@@@@@                             3        \n' +
        '              16 |                                         0        \n' +
        '\n',
    );
  });
});

describe('tst.d-speculation: nspec and failed speculations', () => {
  it('commits the speculation and reports the unavailable one', async () => {
    const r = await wdtrace('-s', script('tst.speculation.d'));
    expect(r.stdout).toBe('direct\nspeculative\n\n');
    expect(r.stderr).toBe('dtrace: 1 failed speculation (no speculative buffer available)\n');
  });
});

describe('err.d: runtime faults and compile errors', () => {
  it('fires ERROR with the fault and the DIF offset', async () => {
    const r = await wdtrace('-qn', 'ERROR { printf("fault %d at offset %d, action %d\\n", arg4, arg3, arg2); } BEGIN { trace(*(int *)8); } BEGIN { exit(0); }');
    expect(r.stdout).toBe('fault 1 at offset 4, action 1\n\n');
    expect(r.stderr).toBe('dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid address (0x8) in action #1 at DIF offset 4\n');
  });
  it('reports compile errors like dtrace(1) with status 1', async () => {
    const r = await wdtrace('-n', 'BEGIN { trace(nosuch); }');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^dtrace: invalid probe specifier BEGIN \{ trace\(nosuch\); \}: line 1: /);
  });
  it('counts drops under a small buffer', async () => {
    const r = await wdtrace('-q', '-b', '64', '-n', 'tick-1ms { trace(1); }', '--run-for', '1s');
    // trace(1) records an int: 12-byte header + 4 bytes, so 64 bytes hold four firings per switch.
    expect(r.stdout).toBe('1111\n');
    expect(r.stderr).toBe('dtrace: 996 drops on CPU 0\n');
  });
});

describe('tst.d-tools: -S, -d and -e', () => {
  it('lists DIF with -S and dumps the sugared program with -d', async () => {
    const s = await wdtrace('-S', '-e', '-n', 'BEGIN { trace(1 + 2); }');
    expect(s.stderr).toBe(
      '\nDIFO 0x1000 returns D type (integer) (size 4)\nOFF OPCODE      INSTRUCTION\n00: 25000001    setx DT_INTEGER[0], %r1\t\t! 0x3\n01: 23000001    ret  %r1\n',
    );
    const d = await wdtrace('-d', '-n', 'BEGIN { if (1) { trace(1); } }');
    expect(d.stdout).toBe('BEGIN\n{\n\tthis->%condition_1 = 1 != 0;\n}\n\nBEGIN\n/this->%condition_1/\n{\n\ttrace(1);\n}\n');
  });
});

describe('tst.d-printa: joined aggregations', () => {
  it('joins several aggregations on their keys, zero where an entry is missing', async () => {
    const r = await wdtrace('-qn', 'BEGIN { @a["x"] = count(); @a["y"] = count(); @a["y"] = count(); @b["y"] = sum(10); @b["z"] = sum(3); printa(@a, @b); printa("%s: %@d %@d\\n", @a, @b); exit(0); }');
    expect(r.stdout).toBe(
      '\n' +
        '  z                                                                 0                3\n' +
        '  x                                                                 1                0\n' +
        '  y                                                                 2               10\n' +
        'z: 0 3\nx: 1 0\ny: 2 10\n' +
        '\n',
    );
  });
});

describe('tst.d-system: destructive system() under -w', () => {
  it('refuses without -w and runs the command in order with -w', async () => {
    const prog = 'BEGIN { printf("before\\n"); system("echo from-%s", "shell"); printf("after\\n"); exit(0); }';
    const no = await wdtrace('-qn', prog);
    expect(no.status).toBe(1);
    expect(no.stderr).toBe('dtrace: could not enable tracing: Destructive actions not allowed\n');
    const yes = await wdtrace('-w', '-n', prog);
    expect(yes.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN before\nfrom-shell\nafter\n\n\n');
    expect(yes.stderr).toBe(`dtrace: description 'BEGIN ' matched 1 probe\ndtrace: allowing destructive actions\n`);
  });
});

describe('tst.d-nodata: clauses whose actions store no data', () => {
  it('print no probe line for aggregations or assignments, but do for an empty clause', async () => {
    const r = await wdtrace('-n', 'tick-10ms { @n = count(); x = 1; } tick-10ms /x/ { self->y = 2; } tick-100ms { } tick-100ms { exit(0); }', '--run-for', '1s');
    expect(r.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0     18                      :tick-100ms \n  0     18                      :tick-100ms \n\n               10\n');
  });
});

describe('tst.d-clause-local: this-> lives across the clauses of one firing', () => {
  it('lowers if/else into clauses that share clause-locals', async () => {
    const r = await wdtrace('-qn', 'BEGIN { if (arg0 > 1) { printf("a"); } else if (arg0 == 0) { printf("b"); } else { printf("c"); } printf("d\\n"); exit(0); }');
    expect(r.stdout).toBe('bd\n\n');
  });
});

describe('tst.d-curpsinfo: curpsinfo, curlwpsinfo and curcpu on the idle machine', () => {
  it('reads the idle thread and CPU through the translated structures', async () => {
    const r = await wdtrace('--cpus', '2', '-qn', 'profile-1hz { printf("%s %d %d [%s] cpu%d %c\\n", curpsinfo->pr_fname, curpsinfo->pr_pid, curlwpsinfo->pr_lwpid, curpsinfo->pr_psargs, curcpu->cpu_id, curlwpsinfo->pr_sname); } tick-1s { exit(0); }');
    expect(r.stdout).toBe('sched 0 0 [sched] cpu0 O\nsched 0 0 [sched] cpu1 O\n\n');
  });
});

describe('tst.d-buffers: bufpolicy, specsize and dynvarsize', () => {
  it('keeps the newest firings in a ring buffer', async () => {
    const r = await wdtrace('-q', '-x', 'bufpolicy=ring', '-b', '64', '-n', 'BEGIN { i = 0; } tick-100ms { printf("%d ", ++i); } tick-1s { exit(0); }');
    // 16 bytes a firing: the last three printf firings and the exit() firing survive.
    expect(r.stdout).toBe('8 9 10 \n');
    expect(r.stderr).toBe('');
  });
  it('stops tracing when a fill buffer fills, keeping room for END', async () => {
    const r = await wdtrace('-q', '-x', 'bufpolicy=fill', '-b', '64', '-n', 'BEGIN { i = 0; } tick-100ms { printf("%d ", ++i); } END { printf("end\\n"); }', '--run-for', '5s');
    // BEGIN's assignment records nothing, so three tick records fit before END's reserve.
    expect(r.stdout).toBe('1 2 3 end\n\n');
    expect(r.stderr).toBe('dtrace: 1 drop on CPU 0\n');
  });
  it('drops speculative data beyond specsize', async () => {
    const r = await wdtrace('-q', '-x', 'specsize=40', '-n', 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("%s", "a long string that does not fit"); } BEGIN { speculate(s); printf("x"); } BEGIN { commit(s); } BEGIN { exit(0); }');
    expect(r.stdout).toBe('x\n');
    expect(r.stderr).toBe('dtrace: 1 speculative drop\n');
  });
  it('counts dynamic variable drops beyond dynvarsize', async () => {
    const r = await wdtrace('-q', '-x', 'dynvarsize=100', '-n', 'BEGIN { i = 0; } tick-10ms { a[i++] = 1; } tick-1s { exit(0); }');
    expect(r.stderr).toMatch(/^dtrace: \d+ dynamic variable drops\n$/);
  });
});

describe('tst.d-options: aggsortkey, aggsortrev and setopt()', () => {
  it('sorts aggregations by key, reversed', async () => {
    const r = await wdtrace('-q', '-x', 'aggsortkey', '-x', 'aggsortrev', '-n', 'BEGIN { @["a"] = sum(3); @["b"] = sum(1); @["c"] = sum(2); exit(0); }');
    expect(r.stdout).toBe(
      '\n  c                                                                 2\n  b                                                                 1\n  a                                                                 3\n',
    );
  });
  it('turns quiet on from setopt() for the rest of the output', async () => {
    const r = await wdtrace('-n', 'BEGIN { setopt("quiet"); printf("quiet now\\n"); } BEGIN { exit(0); }');
    expect(r.stdout).toBe('CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN quiet now\n\n');
  });
});

describe('tst.d-globals: by-reference globals have storage', () => {
  it('stores strings and array elements in global storage', async () => {
    const r = await wdtrace('-qn', 'int a[4]; BEGIN { s = "abc"; a[1] = 5; a[2] = a[1] + 1; s = strjoin(s, "def"); printf("%d %d %d %s %d\\n", a[0], a[1], a[2], s, strlen(s)); exit(0); }');
    expect(r.stdout).toBe('0 5 6 abcdef 6\n\n');
  });
});

describe('tst.d-cpp: -C with -D, -I and -H', () => {
  it('preprocesses the script and lists included files', async () => {
    const inc = fileURLToPath(new URL('./scripts/include', import.meta.url));
    const r = await wdtrace('-C', '-D', 'VALUE=5', '-I', inc, '-H', '-s', script('tst.cpp.d'));
    expect(r.stdout).toBe('hi 5\n\n');
    expect(r.stderr).toBe(`${inc}/greeting.h\n`);
  });
});
