// A Debian armhf program: C built with clang for armv7a-linux-gnueabihf
// (hard float, VFPv3-D16) and linked statically against Debian's armhf
// glibc (libc6-dev-armhf-cross, with the cross libgcc's crtbeginT.o and
// libgcc.a), so glibc's own startup, stdio and libm code — Thumb-2 and
// VFP — runs on the ARM guest. Its output must be what it prints under
// qemu-arm. Skipped when clang, the cross libc or the cross libgcc is absent.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasTool } from './guest-support.js';
import { runArm, poweroffStatus } from './machine-arm-support.js';

const SYSROOT = '/usr/arm-linux-gnueabihf';
/** Where the cross libgcc keeps crtbeginT.o, which a static link takes: /usr/lib/gcc-cross/arm-linux-gnueabihf/<version>. */
const GCC_CROSS = '/usr/lib/gcc-cross/arm-linux-gnueabihf';
const hasCrossLibgcc = existsSync(GCC_CROSS) && readdirSync(GCC_CROSS).some((v) => existsSync(join(GCC_CROSS, v, 'crtbeginT.o')));
const missing = [
  ...['clang', 'ld.lld'].filter((t) => !hasTool(t)),
  ...(existsSync(join(SYSROOT, 'lib', 'libc.a')) ? [] : ['libc6-dev-armhf-cross']),
  ...(hasCrossLibgcc ? [] : ['libgcc-12-dev-armhf-cross']),
];

const PROGRAM = String.raw`
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double in_handler;

static void on_usr1(int sig)
{
	/* The handler's own VFP work must not leak into the interrupted code. */
	volatile double x = sig * 0.25;
	in_handler = sqrt(x) * 3.0 + 1.0;
}

int main(int argc, char **argv)
{
	double x = argc * 1.5, acc = 0;
	float f = (float)x / 7;
	int status, i;
	char buf[64];

	printf("hello %f %g %e\n", x, sqrt(x * 7.0), exp(x));
	printf("%.3f %.10g %f %a\n", sin(x), pow(2.0, x / 3), (double)f, x / 3);
	printf("%ld %d %d %.0f %.0f\n", lround(x * 3.3), (int)floor(-x), (int)ceil(x), rint(2.5), nearbyint(3.5));
	printf("%g %g %g %g\n", log(10.0), atan2(1.0, x), fmod(x * 10, 3.3), hypot(3.0, 4.0));
	printf("%.17g %.9g %g %g\n", 0.1 + 0.2, 1.0f / 3.0f, 1e308 * 10, -0.0);
	printf("%s %d %d\n", isnan(nan("")) ? "nan" : "num", isinf(1.0 / (x - x)) != 0, (int)(0.0 / 0.0 == 0.0 / 0.0));
	snprintf(buf, sizeof(buf), "%8.3f|%-8.2e|%+g", -x, x * 1e10, x);
	printf("%s %g %ld\n", buf, strtod("  -12.5e-1xyz", NULL), strtol("0x7fff", NULL, 16));
	signal(SIGUSR1, on_usr1);
	for (i = 1; i <= 1000; i++) {
		acc += 1.0 / ((double)i * i);
		if (i == 500)
			kill(getpid(), SIGUSR1);
	}
	printf("basel %.12f handler %.6f\n", acc, in_handler);
	fflush(stdout);
	if (fork() == 0) {
		double y = 0;
		for (i = 0; i < 20000; i++)
			y += cos(i * 0.001);
		printf("child %.9f\n", y);
		exit(0);
	}
	for (i = 0; i < 20000; i++)
		acc += sin(i * 0.001) / 1e9;
	wait(&status);
	printf("parent %.12f exit %d\n", acc, WEXITSTATUS(status));
	return 0;
}
`;

describe.skipIf(missing.length > 0)(`ARM machine: a Debian armhf static program${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`, () => {
  let scratch = '';
  let prog: Uint8Array;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'armhf-'));
    writeFileSync(join(scratch, 'prog.c'), PROGRAM);
    const r = spawnSync('clang', ['--target=armv7a-linux-gnueabihf', '-mfpu=vfpv3-d16', '-mfloat-abi=hard', `--sysroot=${SYSROOT}`, '-fuse-ld=lld',
      '-static', '-O2', join(scratch, 'prog.c'), '-o', join(scratch, 'prog'), '-lm'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`clang failed: ${r.stderr}`);
    prog = new Uint8Array(readFileSync(join(scratch, 'prog')));
  }, 120_000);
  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it.each([
    ['A32', false],
    ['Thumb-2', true],
  ])('prints on the %s guest what it prints under qemu-arm (glibc startup, printf of floats, libm, VFP state across a signal handler and fork)', async (_name, thumb) => {
    const r = await runArm(['/bin/prog', 'x'], { thumb, files: [{ path: '/bin/prog', data: prog }] });
    const status = poweroffStatus(r);
    if (hasTool('qemu-arm')) {
      const q = spawnSync('qemu-arm', [join(scratch, 'prog'), 'x'], { encoding: 'utf8' });
      expect(r.output).toBe(q.stdout);
      expect(status).toBe(q.status);
    }
    expect(r.output).toContain('hello 3.000000 4.58258 2.008554e+01\n');
    expect(status).toBe(0);
  }, 300_000);
});
