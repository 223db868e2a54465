// Runs the guest kernel's machine-independent code natively: the page
// allocator, kmalloc, the RAM file system, the initrd unpacker, descriptor
// tables, pipes, several system calls and the hello module are compiled
// unchanged for the host together with guest/tools/harness/harness.c, which
// drives them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUEST_DIR, IMAGES_DIR, ISAS, hasTool, tool } from './guest-support.js';

const KERNEL_FILES = [
  'fs/inode.c', 'fs/ramfs.c', 'fs/initramfs.c', 'fs/file.c', 'fs/char_dev.c', 'fs/open.c',
  'fs/read_write.c', 'fs/pipe.c', 'mm/page_alloc.c', 'mm/kmalloc.c', 'lib/list.c',
];

const skipReason = process.platform !== 'linux' || process.arch !== 'x64'
  ? 'needs an x86-64 Linux host'
  : !hasTool('clang') ? 'clang is not installed' : null;

describe.skipIf(skipReason !== null)(`kernel pieces on the host${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let dir = '';
  let harness = '';
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
      expect(lines).toContain('info unpacked 29 entries');
      expect(lines.at(-1)).toBe('PASSED 0 failure(s)');
      expect(r.status).toBe(0);
    });
  }

  it('reports a missing initrd as a failed check, not a crash', () => {
    const r = spawnSync(harness, [join(dir, 'no-such.cpio')], { encoding: 'utf8' });
    expect(r.stdout).toContain('FAIL initrd read from the host');
    expect(r.status).toBe(1);
  });
});
