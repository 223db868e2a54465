// Runs the guest kernel's machine-independent code natively: the page
// allocator, kmalloc, the RAM file system, the initrd unpacker, descriptor
// tables, pipes, several system calls and the hello module are compiled
// unchanged for the host together with guest/tools/harness/harness.c, which
// drives them; exec and the address-space calls run in harness_mm.c over a
// software page table.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUEST_DIR, IMAGES_DIR, ISAS, hasTool, readCpio, tool } from './guest-support.js';

const KERNEL_FILES = [
  'fs/inode.c', 'fs/ramfs.c', 'fs/initramfs.c', 'fs/file.c', 'fs/char_dev.c', 'fs/open.c',
  'fs/read_write.c', 'fs/pipe.c', 'fs/proc.c', 'mm/page_alloc.c', 'mm/kmalloc.c', 'lib/list.c',
];

const skipReason = process.platform !== 'linux' || process.arch !== 'x64'
  ? 'needs an x86-64 Linux host'
  : !hasTool('clang') ? 'clang is not installed' : null;

describe.skipIf(skipReason !== null)(`kernel pieces on the host${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let dir = '';
  let harness = '';
  let harnessMm = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'guest-harness-'));
    harness = join(dir, 'harness');
    const k = join(GUEST_DIR, 'kernel');
    const flags = [
      '-O1', '-g', '-fno-builtin', '-Wall', '-Werror', '-Wno-unused-parameter', '-D__KERNEL__',
      '-I', join(k, 'include'), '-I', join(k, 'arch', 'x86_64', 'include'), '-I', join(GUEST_DIR, 'include'),
    ];
    // The module's entry points get host-safe names (crti.o owns _init/_fini).
    const hello = join(dir, 'hello.o');
    tool('clang', [...flags, '-D_init=hello_module_init', '-D_fini=hello_module_fini', '-c', join(GUEST_DIR, 'modules', 'hello', 'hello.c'), '-o', hello]);
    tool('clang', [
      ...flags, '-o', harness, join(GUEST_DIR, 'tools', 'harness', 'harness.c'),
      ...KERNEL_FILES.map((f) => join(k, f)), join(GUEST_DIR, 'lib', 'format.c'), hello,
    ]);
    // exec and address spaces over a software page table.
    harnessMm = join(dir, 'harness_mm');
    tool('clang', [
      ...flags, '-o', harnessMm, join(GUEST_DIR, 'tools', 'harness', 'harness_mm.c'),
      ...['core/exec.c', 'mm/mmap.c', 'mm/uaccess.c', ...KERNEL_FILES].map((f) => join(k, f)), join(GUEST_DIR, 'lib', 'format.c'),
    ]);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const isa of ISAS) {
    it(`unpacks the ${isa} initrd and passes every file-system and memory check`, () => {
      const r = spawnSync(harness, [join(IMAGES_DIR, isa, 'initrd.cpio')], { encoding: 'utf8' });
      const lines = r.stdout.trim().split('\n');
      const failed = lines.filter((l) => l.startsWith('FAIL'));
      expect(failed).toEqual([]);
      expect(lines.filter((l) => l.startsWith('ok ')).length).toBeGreaterThanOrEqual(48);
      expect(lines).toContain('ok hello: short reads continue the greeting');
      // Every entry of the committed initrd (x86-64 also has fpmix, which the soft-float ARM guest has not).
      expect(lines).toContain(`info unpacked ${readCpio(readFileSync(join(IMAGES_DIR, isa, 'initrd.cpio'))).length} entries`);
      expect(lines.at(-1)).toBe('PASSED 0 failure(s)');
      expect(r.status).toBe(0);
    });
  }

  it('execs /bin/echo from the x86-64 initrd and runs brk, mmap, munmap, mprotect and the fork copy', () => {
    const r = spawnSync(harnessMm, [join(IMAGES_DIR, 'x86_64', 'initrd.cpio'), 'x86_64'], { encoding: 'utf8', timeout: 30_000 });
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    for (const check of ['ok exec /bin/echo', 'ok auxiliary vector', 'ok every PT_LOAD segment holds the file\'s bytes', 'ok munmap split the mapping', 'ok fork copies pages']) {
      expect(lines).toContain(check);
    }
    expect(lines.at(-1)).toBe('PASSED 0 failure(s)');
    expect(r.status).toBe(0);
  });

  it('refuses to exec the ARM /bin/echo on the x86-64 kernel code', () => {
    const r = spawnSync(harnessMm, [join(IMAGES_DIR, 'arm', 'initrd.cpio'), 'arm'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout).toContain('ok exec of another ISA\'s program gives ENOEXEC');
    expect(r.stdout).toContain('ok a failed exec leaves the caller unchanged');
    expect(r.status).toBe(0);
  });

  it('reports a missing initrd as a failed check, not a crash', () => {
    const r = spawnSync(harness, [join(dir, 'no-such.cpio')], { encoding: 'utf8' });
    expect(r.stdout).toContain('FAIL initrd read from the host');
    expect(r.status).toBe(1);
  });
});
