import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { disassembleElfFile } from '../src/dis.js';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));
const images = fileURLToPath(new URL('../../../packages/kernel/guest/images/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'wdtrace-dis-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const has = (tool: string) => spawnSync(tool, ['--version'], { encoding: 'utf8' }).status === 0;
const haveToolchain = has('clang') && has('llvm-objdump') && has('llvm-mc') && has('ld.lld');

/** Runs a command without blocking; resolves with its status and output. */
function command(file: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => resolve({ status: null, stdout, stderr: String(e) }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Maps `items` through `job`, as many jobs at a time as there are cores; results in the order of `items`. */
async function inParallel<T, R>(items: readonly T[], job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(items.length, availableParallelism()) }, worker));
  return results;
}

function wdtrace(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: scratch, maxBuffer: 64 << 20 });
}

const SOURCE = `
struct node { struct node *next; long value; };
long sum(struct node *n) { long s = 0; for (; n; n = n->next) s += n->value * 3 + 1; return s; }
__attribute__((noinline)) int scale(int a, int b) { return a * b + (a >> 2) - (b & 7); }
int entry(int x) { return scale(x, 5) + scale(x + 1, 7); }
`;

/** Functions whose Thumb-2 code has IT blocks, switch tables and literal loads. */
const THUMB_EXTRA = `
static const char *names[] = {"a", "bb", "ccc", "dddd", "e", "f"};
const char *pick(unsigned i) { switch (i) { case 0: return names[1]; case 1: return "x"; case 2: return names[3]; case 3: return names[4]; default: return 0; } }
int cond(int a, int b) { return a > b ? a - b : b + 3; }
unsigned big(void) { return 0x12345678u; }
`;

describe.runIf(haveToolchain)('wdtrace dis agrees with llvm-objdump -d', () => {
  for (const [arch, target] of [['x86_64', 'x86_64-unknown-none-elf'], ['arm', 'armv7a-none-eabi']] as const) {
    it(`on a clang-built ${arch} object, byte for byte`, () => {
      writeFileSync(join(scratch, 'sample.c'), SOURCE);
      const cc = spawnSync('clang', [`--target=${target}`, ...(arch === 'arm' ? ['-marm'] : []), '-O2', '-fno-omit-frame-pointer', '-c', 'sample.c', '-o', `${arch}.o`], { cwd: scratch, encoding: 'utf8' });
      expect(cc.status, cc.stderr).toBe(0);
      const ours = wdtrace('dis', '--arch', arch, `${arch}.o`);
      expect(ours.status, ours.stderr).toBe(0);
      const theirs = spawnSync('llvm-objdump', ['-d', `${arch}.o`], { cwd: scratch, encoding: 'utf8' });
      expect(ours.stdout).toBe(theirs.stdout);
    });
  }

  it('on a clang-built Thumb-2 object (IT blocks, 16- and 32-bit forms, literal pools), byte for byte', () => {
    writeFileSync(join(scratch, 'sample.c'), SOURCE + THUMB_EXTRA);
    const cc = spawnSync('clang', ['--target=armv7a-none-eabi', '-mthumb', '-O2', '-fno-omit-frame-pointer', '-c', 'sample.c', '-o', 'thumb.o'], { cwd: scratch, encoding: 'utf8' });
    expect(cc.status, cc.stderr).toBe(0);
    const ours = wdtrace('dis', '--arch', 'arm', 'thumb.o');
    expect(ours.status, ours.stderr).toBe(0);
    expect(ours.stdout).toMatch(/\tit\t/); // the sample has an IT block
    expect(ours.stdout).toBe(spawnSync('llvm-objdump', ['-d', 'thumb.o'], { cwd: scratch, encoding: 'utf8' }).stdout);
  });

  it('on the guest libc, kernel and programs built as Thumb-2, byte for byte', async () => {
    const guest = fileURLToPath(new URL('../../../packages/kernel/guest/', import.meta.url));
    const dirs = ['libc/src', 'lib', 'kernel/core', 'kernel/fs', 'kernel/mm', 'kernel/lib', 'kernel/drivers', 'kernel/init', 'kernel/arch/arm', 'user'];
    const flags = ['--target=armv7a-none-eabi', '-mthumb', '-mfloat-abi=soft', '-mfpu=none', '-O2', '-std=gnu11', '-ffreestanding', '-fno-builtin', '-nostdlibinc',
      '-fno-omit-frame-pointer', '-fno-stack-protector', '-fno-common', '-fno-pic', '-D__KERNEL__',
      ...['include', 'libc/include', 'kernel/include', 'kernel/arch/arm/include'].flatMap((d) => ['-I', join(guest, d)])];
    // Programs with USDT probes include the header the guest build makes with `wdtrace -h` from user/<prog>_provider.d.
    for (const d of readdirSync(join(guest, 'user')).filter((f) => f.endsWith('_provider.d'))) {
      const h = wdtrace('-h', '-s', join(guest, 'user', d), '-o', join(scratch, d.replace(/\.d$/, '.h')));
      expect(h.status, h.stderr).toBe(0);
    }
    flags.push('-I', scratch);
    // clang and llvm-objdump for each file run as child processes, as many at
    // a time as there are cores; the comparisons follow in file order. The
    // time limit is a hang detector: about 50 s of CPU, but on a machine
    // shared by every package's tests it took over 300 s.
    const sources = dirs.flatMap((dir) => readdirSync(join(guest, dir)).filter((f) => f.endsWith('.c')).sort().map((name) => ({ dir, name })));
    const built = await inParallel(sources, async ({ dir, name }) => {
      const obj = join(scratch, `${dir.replace(/\//g, '_')}_${name}.o`);
      const cc = await command('clang', [...flags, '-c', join(guest, dir, name), '-o', obj]);
      const theirs = cc.status === 0 ? await command('llvm-objdump', ['-d', obj]) : cc;
      return { dir, name, obj, cc, theirs };
    });
    let objects = 0;
    let lines = 0;
    for (const { dir, name, obj, cc, theirs } of built) {
      expect(cc.status, `${dir}/${name}: ${cc.stderr}`).toBe(0);
      expect(theirs.status, `${dir}/${name}: ${theirs.stderr}`).toBe(0);
      // In process (the same code `wdtrace dis` runs): sixty node start-ups would dominate.
      const ours = await disassembleElfFile(readFileSync(obj), obj);
      expect(ours.split('\n'), `${dir}/${name}`).toEqual(theirs.stdout.split('\n'));
      objects++;
      lines += theirs.stdout.split('\n').length;
    }
    expect(objects).toBeGreaterThan(50);
    expect(lines).toBeGreaterThan(15000);
  }, 900_000);

  it('with --thumb, decodes code that no mapping symbol marks as Thumb, as llvm-objdump --triple=thumbv7 does', () => {
    writeFileSync(join(scratch, 'plain.s'), '.syntax unified\n.thumb\n.text\nf:\n push {r7, lr}\n mov r7, sp\n cmp r0, #3\n ite gt\n movgt r0, #1\n movle.w r0, #2\n bl f\n cbz r1, 1f\n pop {r7, pc}\n1: bx lr\n');
    expect(spawnSync('llvm-mc', ['-triple=thumbv7', '-filetype=obj', 'plain.s', '-o', 'plain-mapped.o'], { cwd: scratch }).status).toBe(0);
    expect(spawnSync('llvm-objcopy', ['--strip-symbol=$t', '--strip-symbol=$t.0', 'plain-mapped.o', 'plain.o'], { cwd: scratch }).status).toBe(0);
    const ours = wdtrace('dis', '--thumb', 'plain.o');
    expect(ours.status, ours.stderr).toBe(0);
    expect(ours.stdout).toMatch(/\tite\tgt\n/);
    expect(ours.stdout).toBe(spawnSync('llvm-objdump', ['-d', '--triple=thumbv7', 'plain.o'], { cwd: scratch, encoding: 'utf8' }).stdout);
    // Without --thumb, unmarked code is A32.
    expect(wdtrace('dis', 'plain.o').stdout).not.toMatch(/\tite\t/);
  });

  it('on x86-64 kernel functions at 64-bit addresses (bytes padded to column 39 or the next stop), byte for byte', () => {
    const file = join(images, 'x86_64/kernel.elf');
    const ours = wdtrace('dis', file, '--symbol', 'sys_getpid', '--symbol', 'get_current');
    expect(ours.status, ours.stderr).toBe(0);
    const theirs = spawnSync('llvm-objdump', ['-d', '--disassemble-symbols=sys_getpid,get_current', file], { encoding: 'utf8' });
    expect(ours.stdout).toBe(theirs.stdout);
  });

  it('on long x86-64 instructions at 64-bit addresses, byte for byte', () => {
    writeFileSync(join(scratch, 'long.s'), 'movl $2, 232(%r15)\nmovq $0, -2145254832(,%rbx,8)\nnopw (%rax,%rax)\nret\n');
    const as = spawnSync('llvm-mc', ['-filetype=obj', 'long.s', '-o', 'long.o'], { cwd: scratch, encoding: 'utf8' });
    expect(as.status, as.stderr).toBe(0);
    const ld = spawnSync('ld.lld', ['-e', '0', '-Ttext=0xffffffff80100000', 'long.o', '-o', 'long.elf'], { cwd: scratch, encoding: 'utf8' });
    expect(ld.status, ld.stderr).toBe(0);
    const ours = wdtrace('dis', 'long.elf');
    expect(ours.status, ours.stderr).toBe(0);
    expect(ours.stdout).toBe(spawnSync('llvm-objdump', ['-d', 'long.elf'], { cwd: scratch, encoding: 'utf8' }).stdout);
  });

  // x86-64: immediate and RIP-relative comments, system instructions; ARM: literal pools, branch and literal comments;
  // Thumb-2: BLX to A32 library code from kernel addresses above 2 GiB.
  it.each(['x86_64', 'arm', 'arm-thumb'])('on the whole %s guest kernel, byte for byte', (arch) => {
    const file = join(images, `${arch}/kernel.elf`);
    const ours = wdtrace('dis', file);
    expect(ours.status, ours.stderr).toBe(0);
    const theirs = spawnSync('llvm-objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(ours.stdout.split('\n')).toEqual(theirs.stdout.split('\n'));
  });
});

describe('wdtrace dis', () => {
  it('disassembles one symbol of the guest kernel on each ISA', () => {
    const x86 = wdtrace('dis', join(images, 'x86_64/kernel.elf'), '--symbol', 'sys_getpid');
    expect(x86.status, x86.stderr).toBe(0);
    expect(x86.stdout).toMatch(/file format elf64-x86-64\n\nDisassembly of section \.text:\n\nffffffff[0-9a-f]{8} <sys_getpid>:\n/);
    expect(x86.stdout).toMatch(/\tpushq\t%rbp\n/);
    expect(x86.stdout).toMatch(/\tretq\n/);
    const arm = wdtrace('dis', '--arch', 'arm', join(images, 'arm/kernel.elf'), '--symbol', 'sys_getpid');
    expect(arm.status, arm.stderr).toBe(0);
    expect(arm.stdout).toMatch(/file format elf32-littlearm\n\nDisassembly of section \.text:\n\nc0[0-9a-f]{6} <sys_getpid>:\n/);
  });

  it('reports a missing file, a non-ELF file, a wrong --arch and an unknown symbol', () => {
    const missing = wdtrace('dis', 'nope.elf');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('wdtrace dis: cannot open nope.elf: No such file or directory\n');
    writeFileSync(join(scratch, 'text.txt'), 'hello, not an ELF file\n');
    const notElf = wdtrace('dis', 'text.txt');
    expect(notElf.status).toBe(1);
    expect(notElf.stderr).toMatch(/^wdtrace dis: text\.txt: .*not an ELF file/);
    const wrongArch = wdtrace('dis', '--arch', 'arm', join(images, 'x86_64/kernel.elf'));
    expect(wrongArch.status).toBe(1);
    expect(wrongArch.stderr).toMatch(/is an x86_64 ELF file, not arm\n$/);
    const badArch = wdtrace('dis', '--arch', 'mips', join(images, 'x86_64/kernel.elf'));
    expect(badArch.status).toBe(2);
    expect(badArch.stderr).toBe("wdtrace dis: unknown architecture 'mips' (x86_64 or arm)\n");
    const noSym = wdtrace('dis', join(images, 'arm/kernel.elf'), '--symbol', 'no_such_function');
    expect(noSym.status).toBe(1);
    expect(noSym.stderr).toMatch(/no symbol 'no_such_function' in an executable section\n$/);
    const thumbX86 = wdtrace('dis', '--thumb', join(images, 'x86_64/kernel.elf'));
    expect(thumbX86.status).toBe(1);
    expect(thumbX86.stderr).toMatch(/is an x86_64 ELF file: --thumb is for ARM code\n$/);
    const thumbArch = wdtrace('dis', '--arch', 'x86_64', '--thumb', join(images, 'x86_64/kernel.elf'));
    expect(thumbArch.status).toBe(2);
    expect(thumbArch.stderr).toBe('wdtrace dis: --thumb is for ARM code, not x86_64\n');
    for (const r of [missing, notElf, wrongArch, badArch, noSym, thumbX86, thumbArch]) expect(r.stdout).toBe('');
  });

  it('is listed in the help', () => {
    const help = wdtrace('--help').stdout;
    expect(help).toContain('wdtrace dis [--arch x86_64|arm] [--thumb] [--symbol NAME]... FILE');
    expect(help).toContain('wdtrace dis --live PROBE-DESCRIPTION [--arch x86_64|arm] [--symbol NAME]...');
  });

  it('has a help of its own without empty defaults', () => {
    const help = wdtrace('dis', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--symbol <name>  only this symbol (may be repeated)\n');
    expect(help.stdout).not.toContain('default: []');
  });
});
