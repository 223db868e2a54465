// Floating point in real static Linux programs on the x86-64 machine: a C
// program built here with the host's gcc -static (or clang) and glibc, using
// printf's %f %e %g %a and %Lf, strtod/strtold and libm (the double
// functions are SSE2 code, the long double ones the x87's, and glibc's string
// functions pick their SSSE3/SSE4.2 versions from CPUID), runs in the guest
// and prints what it prints natively; so do the floating-point applets of
// Debian's busybox-static when it is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotRun, hasTool, runGuest } from './guest-support.js';
import { runX86 } from './machine-x86-support.js';

// atanl's last digit is left out (%.18Lg): x87 FPATAN results may differ from
// a given processor's in the last bit (the host's is not always correctly rounded).
const PROGRAM = String.raw`
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	double x = strtod(argc > 1 ? argv[1] : "3.14159265358979", 0);
	long double l = 1.0L / 3 + x;
	char buf[64];
	printf("%f %e %g %.17g\n", x, x * 1e10, x / 7, x);
	printf("%Lf %.20Lg %La\n", l, l, l);
	printf("%.3f %.0f %g %g %a\n", 2.0 / 3, 2.5, 1e-300 * 1e-10, 1.0 / 0.0, 0.1);
	printf("%.17g %.17g %.17g %.17g %.17g\n", sqrt(x), exp(x), log(x), sin(x), pow(x, 2.5));
	printf("%.17g %.17g %.17g %.17g\n", cos(x * 100), tan(x), atan2(x, -1), log10(x));
	printf("%.20Lg %.20Lg %.20Lg\n", sqrtl(l), expl(l), logl(l));
	printf("%.20Lg %.20Lg %.18Lg\n", sinl(l), powl(l, 1.5L), atanl(l));
	printf("%.17g %.17g\n", strtod("2.718281828459045e-3", 0), strtod("0x1.8p3", 0));
	printf("%.20Lg\n", strtold("1.23456789012345678901234567890e4000", 0));
	snprintf(buf, sizeof buf, "%08.3f|%-10.2e|%+g", -x, x, x);
	puts(buf);
	printf("%ld %d %s\n", lrint(x * 1000), (int)floor(-x), strstr("pcmpistri finds this", "this"));
	return 0;
}
`;

// The floating-point environment: rounding modes (the x87 control word and
// MXCSR both), exception flags raised by SSE and x87 arithmetic, and an
// unmasked x87 exception delivered as SIGFPE.
const FENV = String.raw`
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static void on_fpe(int sig) { printf("SIGFPE %d\n", sig); fflush(stdout); _exit(7); }
int main(int argc, char **argv)
{
	volatile double one = argc, three = 3, big = 1e308, tiny = 1e-308;
	volatile long double lone = argc, lzero = argc - 1;
	const int modes[] = { FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO };
	for (int i = 0; i < 4; i++) {
		fesetround(modes[i]);
		printf("%d: %.17g %.17g %.20Lg %.1f %.0f\n", fegetround() == modes[i], one / three, -one / three, lone / 3, rint(2.5), nearbyint(-3.5));
	}
	fesetround(FE_TONEAREST);
	feclearexcept(FE_ALL_EXCEPT);
	volatile double x = big * 10;
	printf("overflow %d inexact %d\n", fetestexcept(FE_OVERFLOW) != 0, fetestexcept(FE_INEXACT) != 0);
	feclearexcept(FE_ALL_EXCEPT);
	x = tiny / 1e10;
	printf("underflow %d divbyzero %d\n", fetestexcept(FE_UNDERFLOW) != 0, fetestexcept(FE_DIVBYZERO) != 0);
	feclearexcept(FE_ALL_EXCEPT);
	x = one / (one - one);
	printf("divbyzero %d invalid %d %g\n", fetestexcept(FE_DIVBYZERO) != 0, fetestexcept(FE_INVALID) != 0, x);
	feclearexcept(FE_ALL_EXCEPT);
	volatile long double l = sqrtl(-lone);
	printf("x87 invalid %d %Lf\n", fetestexcept(FE_INVALID) != 0, l);
	signal(SIGFPE, on_fpe);
	feenableexcept(FE_DIVBYZERO);
	l = lone / lzero;
	printf("not reached %Lf\n", l);
	return 0;
}
`;

/** Builds a C program statically with gcc (or clang); its path, or why it cannot be built. */
function build(name: string, source: string): { path?: string; dir?: string; reason?: string } {
  const host = cannotRun('x86_64');
  if (host) return { reason: host };
  const cc = ['gcc', 'clang'].find((c) => hasTool(c));
  if (!cc) return { reason: 'neither gcc nor clang is installed' };
  const dir = mkdtempSync(join(tmpdir(), 'machine-float-'));
  writeFileSync(join(dir, `${name}.c`), source);
  const r = spawnSync(cc, ['-static', '-O2', '-o', join(dir, name), join(dir, `${name}.c`), '-lm'], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `${cc} cannot link static programs here (no libc.a)` };
  }
  return { path: join(dir, name), dir };
}
const program = build('fp', PROGRAM);
const fenv = build('fenv', FENV);
afterAll(() => {
  for (const p of [program, fenv]) if (p.dir) rmSync(p.dir, { recursive: true, force: true });
});

describe.skipIf(program.reason !== undefined)(`x86-64 machine: floating point in a static glibc program${program.reason ? ` (skipped: ${program.reason})` : ''}`, () => {
  it('prints with %f %e %g %a %Lf, converts with strtod/strtold and computes libm functions exactly as natively', async () => {
    const data = new Uint8Array(readFileSync(program.path!));
    for (const arg of ['3.14159265358979', '-0.0001', '1e300', '6.02214076e23']) {
      const native = runGuest('x86_64', program.path!, [arg]);
      const r = await runX86(['/usr/bin/fp', arg], { files: [{ path: '/usr/bin/fp', data }] });
      expect(native.status).toBe(0);
      expect(r.output).toBe(native.stdout);
      expect(r.status).toBe(0);
    }
  }, 120_000);
});

describe.skipIf(fenv.reason !== undefined)(`x86-64 machine: the floating-point environment of a static glibc program${fenv.reason ? ` (skipped: ${fenv.reason})` : ''}`, () => {
  it('rounds in every rounding mode, raises exception flags, and delivers an unmasked x87 exception as SIGFPE, as natively', async () => {
    const native = runGuest('x86_64', fenv.path!, []);
    const r = await runX86(['/usr/bin/fenv'], { files: [{ path: '/usr/bin/fenv', data: new Uint8Array(readFileSync(fenv.path!)) }] });
    expect(r.output).toBe(native.stdout);
    expect(r.output).toContain('overflow 1 inexact 1\n');
    expect(r.output.endsWith('SIGFPE 8\n')).toBe(true);
    expect(r.status).toBe(7);
    expect(native.status).toBe(7);
  }, 120_000);
});

// ---- busybox ----------------------------------------------------------------------------------
const BUSYBOX = ['/usr/bin/busybox', '/bin/busybox'].find((p) => existsSync(p) && isStaticX86(p));
function isStaticX86(path: string): boolean {
  const b = readFileSync(path);
  // ELF64, x86-64, and no PT_INTERP: a static executable the guest can load
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b.readUInt16LE(18) !== 62) return false;
  const phoff = Number(b.readBigUInt64LE(32)), phentsize = b.readUInt16LE(54), phnum = b.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) if (b.readUInt32LE(phoff + i * phentsize) === 3) return false;
  return true;
}
const busyboxReason = cannotRun('x86_64') ?? (BUSYBOX ? undefined : 'busybox-static (amd64) is not installed');

// busybox's awk is built without its math functions: arithmetic and printf only
const AWK = String.raw`BEGIN {
  printf "%.3f\n", 1/3
  printf "%e %g %d %.10f %.3e\n", 1e100/3, 2/3, 7/2, 355/113, -1/7e20
  n = split("3.5 -2.25 1e3 0.1 7.125", a, " "); t = 0
  for (i = 1; i <= n; i++) t += a[i]
  print t, t / n, int(-3.7), 10 % 3, 0.1 + 0.2, 1e300 * 1e10, -1e-320
  printf "%5.1f|%-8.3e|%x|%o|%c|%s\n", 3.14159, 0.000123, 255, 8, 65, 1/4
  x = 1; for (i = 0; i < 60; i++) x *= 1.5; print x, x / 3, x % 7
}
`;

describe.skipIf(busyboxReason !== undefined)(`x86-64 machine: busybox's floating-point applets${busyboxReason ? ` (skipped: ${busyboxReason})` : ''}`, () => {
  const files = () => [
    { path: '/bin/busybox', data: new Uint8Array(readFileSync(BUSYBOX!)) },
    { path: '/tmp/fp.awk', data: new TextEncoder().encode(AWK) },
  ];

  it('awk formats and computes as natively', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'machine-awk-'));
    try {
      writeFileSync(join(dir, 'fp.awk'), AWK);
      const native = runGuest('x86_64', BUSYBOX!, ['awk', '-f', join(dir, 'fp.awk')]);
      const r = await runX86(['/bin/busybox', 'awk', '-f', '/tmp/fp.awk'], { files: files() });
      expect(r.output).toBe(native.stdout);
      expect(r.output.split('\n')[0]).toBe('0.333');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('seq with a fractional step, and sleep parses a fractional time', async () => {
    const native = runGuest('x86_64', BUSYBOX!, ['seq', '0', '0.5', '2']);
    const seq = await runX86(['/bin/busybox', 'seq', '0', '0.5', '2'], { files: files() });
    expect(seq.output).toBe(native.stdout);
    expect(seq.output).toBe('0.0\n0.5\n1.0\n1.5\n2.0\n');
    const sleep = await runX86(['/bin/busybox', 'sleep', '0.1'], { files: files() });
    expect(sleep).toMatchObject({ output: '', status: 0 });
  }, 120_000);
});
