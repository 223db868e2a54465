import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));
const images = fileURLToPath(new URL('../../../packages/kernel/guest/images/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'wdtrace-dis-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const has = (tool: string) => spawnSync(tool, ['--version'], { encoding: 'utf8' }).status === 0;
const haveToolchain = has('clang') && has('llvm-objdump') && has('llvm-mc') && has('ld.lld');

function wdtrace(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: scratch });
}

const SOURCE = `
struct node { struct node *next; long value; };
long sum(struct node *n) { long s = 0; for (; n; n = n->next) s += n->value * 3 + 1; return s; }
__attribute__((noinline)) int scale(int a, int b) { return a * b + (a >> 2) - (b & 7); }
int entry(int x) { return scale(x, 5) + scale(x + 1, 7); }
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

  // x86-64: immediate and RIP-relative comments, system instructions; ARM: literal pools, branch and literal comments.
  it.each(['x86_64', 'arm'])('on the whole %s guest kernel, byte for byte', (arch) => {
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
    for (const r of [missing, notElf, wrongArch, badArch, noSym]) expect(r.stdout).toBe('');
  });

  it('is listed in the help', () => {
    expect(wdtrace('--help').stdout).toContain('wdtrace dis [--arch x86_64|arm] [--symbol NAME]... FILE');
    expect(wdtrace('--help').stdout).toContain('wdtrace dis --live PROBE-DESCRIPTION [--arch x86_64|arm] [--symbol NAME]...');
  });

  it('has a help of its own without empty defaults', () => {
    const help = wdtrace('dis', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--symbol <name>  only this symbol (may be repeated)\n');
    expect(help.stdout).not.toContain('default: []');
  });
});
