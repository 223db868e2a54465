// Checks of the committed guest images with the LLVM tools: kernel and
// module ELF shape, Linux-style function names, frame-pointer prologues,
// the __dtrace_probe_* call sites krtld relies on, DWARF, and that a fresh
// rebuild reproduces the committed bytes. Also builds a C program against
// the guest libc and runs it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUEST_DIR, IMAGES_DIR, ISAS, cannotRun, hasTool, runGuest, tool, type Isa } from './guest-support.js';

const LLVM_TOOLS = ['llvm-readelf', 'llvm-nm', 'llvm-objdump', 'llvm-dwarfdump'];
const missingLlvm = LLVM_TOOLS.filter((t) => !hasTool(t));
const missingBuild = ['clang', 'ld.lld', 'llvm-ar', 'llvm-strip'].filter((t) => !hasTool(t));

/** The committed image sets: each ISA's, and the ARM guest built as Thumb-2. */
const IMAGE_SETS: readonly { name: string; isa: Isa; thumb: boolean }[] = [...ISAS.map((isa) => ({ name: isa as string, isa, thumb: false })), { name: 'arm-thumb', isa: 'arm', thumb: true }];

/** Labels defined in the guest's assembly sources: they have no C prologue. */
function assemblyLabels(isa: Isa): Set<string> {
  const labels = new Set<string>();
  const files = [
    ...readdirSync(join(GUEST_DIR, 'kernel', 'arch', isa)).filter((f) => f.endsWith('.S')).map((f) => join(GUEST_DIR, 'kernel', 'arch', isa, f)),
    join(GUEST_DIR, 'lib', 'divide_arm.S'),
  ];
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^([A-Za-z_][\w]*):/gm)) labels.add(m[1]!);
  }
  for (let v = 0; v < 48; v++) labels.add(`trap_stub_${v}`);
  return labels;
}

/** Disassembly split into functions: name -> instruction texts (no raw bytes). */
function functionsOf(elf: string, relocs = false): Map<string, string[]> {
  const out = tool('llvm-objdump', ['-d', '--no-show-raw-insn', ...(relocs ? ['-r'] : []), elf]);
  const funcs = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of out.split('\n')) {
    const head = /^[0-9a-f]+ <([^>]+)>:$/.exec(line);
    if (head) {
      current = [];
      funcs.set(head[1]!, current);
    } else if (current && line.trim()) {
      current.push(line.trim());
    }
  }
  return funcs;
}

function funcSymbols(elf: string): string[] {
  return tool('llvm-readelf', ['-s', '-W', elf])
    .split('\n')
    .filter((l) => / FUNC /.test(l))
    .map((l) => l.trim().split(/\s+/).at(-1)!);
}

const LINUX_NAMES = [
  'start_kernel', 'schedule', 'do_fork', 'do_exit', 'do_execve', 'do_wait4', 'wake_up_process', 'scheduler_tick',
  'sys_read', 'sys_write', 'sys_openat', 'sys_close', 'sys_execve', 'sys_clone', 'sys_wait4', 'sys_mmap', 'sys_brk',
  'sys_getdents64', 'sys_pipe2', 'sys_dup2', 'sys_nanosleep', 'sys_clock_gettime', 'sys_uname', 'sys_kill',
  'vfs_read', 'vfs_write', 'vfs_mkdir', 'vfs_unlink', 'path_lookup', 'filp_open', 'fd_install', 'do_pipe',
  'populate_rootfs', 'handle_mm_fault', 'copy_to_user', 'copy_from_user', 'kmalloc', 'kfree', 'alloc_page',
  'send_signal', 'do_signal', 'do_syscall', 'register_chrdev', 'printk', 'panic', 'mm_dup', 'kmod_poll',
];

/** Expected probe sites: function -> probe symbols it must call. */
const CORE_SITES: Record<string, string[]> = {
  do_execve_common: ['__dtrace_probe___proc_exec', '__dtrace_probe___proc_exec__success'],
  do_exit: ['__dtrace_probe___proc_exit'],
  do_fork: ['__dtrace_probe___proc_create'],
  send_signal: ['__dtrace_probe___proc_signal__send'],
  schedule: ['__dtrace_probe___sched_off__cpu', '__dtrace_probe___sched_on__cpu'],
  enqueue_task: ['__dtrace_probe___sched_enqueue'],
  dequeue_task: ['__dtrace_probe___sched_dequeue'],
  wake_up_process: ['__dtrace_probe___sched_wakeup'],
  do_syscall: ['__dtrace_probe_syscall__entry', '__dtrace_probe_syscall__return'],
  vfs_read: ['__dtrace_probe___io_start', '__dtrace_probe___io_done'],
  vfs_write: ['__dtrace_probe___io_start', '__dtrace_probe___io_done'],
  sys_read: ['__dtrace_probe_file__read__start', '__dtrace_probe_file__read__done'],
  sys_write: ['__dtrace_probe_file__write__start', '__dtrace_probe_file__write__done'],
};

/** (function, probe symbol, instruction) for every relocation against a probe. */
function probeSites(elf: string): { func: string; symbol: string; insn: string }[] {
  const sites: { func: string; symbol: string; insn: string }[] = [];
  for (const [func, lines] of functionsOf(elf, true)) {
    lines.forEach((line, i) => {
      const m = /R_(?:X86_64_PLT32|X86_64_PC32|ARM_CALL|ARM_JUMP24|ARM_THM_CALL|ARM_THM_JUMP24)\s+(__dtrace_probe_\w+)/.exec(line);
      if (m) sites.push({ func, symbol: m[1]!, insn: lines[i - 1] ?? '' });
    });
  }
  return sites;
}

describe.skipIf(missingLlvm.length > 0)(`guest images${missingLlvm.length ? ` (skipped: ${missingLlvm.join(', ')} not installed)` : ''}`, () => {
  for (const { name, isa, thumb } of IMAGE_SETS) {
    const kernel = join(IMAGES_DIR, name, 'kernel.elf');
    const module = join(IMAGES_DIR, name, 'modules', 'hello.ko');
    const callInsn = isa === 'x86_64' ? /^callq?\s/ : /^bl\s/;
    // The frame pointer: r11 in A32 code, r7 in Thumb code.
    const fp = thumb ? 'r7' : 'r11';

    describe(name, () => {
      it('kernel.elf is a static executable loaded at physical 1 MiB', () => {
        const header = tool('llvm-readelf', ['-h', '-l', '-W', kernel]);
        expect(header).toMatch(/Type:\s+EXEC/);
        expect(header).toMatch(isa === 'x86_64' ? /Machine:\s+Advanced Micro Devices X86-64/ : /Machine:\s+ARM/);
        expect(header).toMatch(isa === 'x86_64' ? /Entry point address:\s+0xFFFFFFFF80100000/ : /Entry point address:\s+0x100000\b/);
        const loads = header.split('\n').filter((l) => /^\s*LOAD/.test(l));
        expect(loads.length).toBeGreaterThanOrEqual(2);
        const firstPaddr = BigInt(loads[0]!.trim().split(/\s+/)[3]!);
        expect(firstPaddr).toBe(0x100000n);
      });

      it('has several hundred functions with Linux-style names', () => {
        const names = funcSymbols(kernel);
        expect(names.length).toBeGreaterThanOrEqual(300);
        for (const n of LINUX_NAMES) expect(names, n).toContain(n);
      });

      it.runIf(thumb)('every C function is Thumb code (bit 0 of its symbol set), the assembly A32', () => {
        const asm = assemblyLabels(isa);
        const lines = tool('llvm-readelf', ['-s', '-W', kernel]).split('\n').filter((l) => / FUNC /.test(l));
        expect(lines.length).toBeGreaterThan(300);
        for (const l of lines) {
          const f = l.trim().split(/\s+/);
          const value = parseInt(f[1]!, 16);
          // ld.lld's interworking thunks (`b memcpy` from A32 code) are A32 too.
          const a32 = asm.has(f.at(-1)!) || /^__ARMv7ABSLongThunk_/.test(f.at(-1)!);
          expect(value & 1, f.at(-1)).toBe(a32 ? 0 : 1);
        }
      });

      it('every C function has a frame-pointer prologue', () => {
        const asm = assemblyLabels(isa);
        const funcs = functionsOf(kernel);
        let checked = 0;
        for (const name of funcSymbols(kernel)) {
          if (asm.has(name) || name.startsWith('__aeabi_')) continue;
          const body = funcs.get(name);
          expect(body, name).toBeDefined();
          const insns = body!.map((l) => l.replace(/^[0-9a-f]+:\s*/, ''));
          if (isa === 'x86_64') {
            expect(insns[0], name).toMatch(/^pushq\s+%rbp$/);
            expect(insns[1], name).toMatch(/^movq\s+%rsp, %rbp$/);
            checked++;
          } else if (insns.some((i) => /^bl\s/.test(i))) {
            // clang 14 gives ARM leaf functions no frame; non-leaf ones push
            // r11 and lr and point r11 at the frame record.
            // A variadic function first makes room for its register arguments.
            // Thumb code pushes r7 and lr and points r7 at the frame record.
            const start = /^sub(\.w)?\s+sp, (sp, )?#\d+$/.test(insns[0]!) ? 1 : 0;
            expect(insns[start], name).toMatch(new RegExp(`^push\\s+\\{.*${fp}, lr\\}$`));
            expect(insns[start + 1], name).toMatch(new RegExp(`^(add\\s+${fp}, sp, #\\d+|mov\\s+${fp}, sp)$`));
            checked++;
          }
        }
        expect(checked).toBeGreaterThan(isa === 'x86_64' ? 300 : 150);
      });

      it('keeps a relocation at every __dtrace_probe_* call and leaves only those undefined', () => {
        const undefinedSyms = tool('llvm-nm', ['-u', kernel]).split('\n').map((l) => l.trim().replace(/^U\s+/, '')).filter(Boolean);
        expect(undefinedSyms.length).toBeGreaterThan(10);
        for (const s of undefinedSyms) expect(s).toMatch(/^__dtrace_probe_/);
        const sites = probeSites(kernel);
        for (const site of sites) expect(site.insn.replace(/^[0-9a-f]+:\s*/, ''), `${site.func} ${site.symbol}`).toMatch(callInsn);
        for (const [func, symbols] of Object.entries(CORE_SITES)) {
          for (const symbol of symbols) {
            expect(sites.some((s) => s.func === func && s.symbol === symbol), `${symbol} in ${func}`).toBe(true);
          }
        }
        // Every undefined probe symbol has at least one site.
        for (const s of undefinedSyms) expect(sites.some((site) => site.symbol === s), s).toBe(true);
      });

      it('hello.ko is ET_REL with probe relocations and _init/_fini', () => {
        const header = tool('llvm-readelf', ['-h', module]);
        expect(header).toMatch(/Type:\s+REL/);
        const syms = tool('llvm-nm', [module]);
        expect(syms).toMatch(/ T _init$/m);
        expect(syms).toMatch(/ T _fini$/m);
        for (const needed of ['register_chrdev', 'devfs_create', 'copy_to_user', 'printk']) expect(syms).toMatch(new RegExp(`^\\s+U ${needed}$`, 'm'));
        const relocs = tool('llvm-readelf', ['-r', '-W', module]);
        for (const probe of ['hello__open', 'hello__read__start', 'hello__read__done', 'hello__write', 'hello__release']) {
          expect(relocs).toContain(`__dtrace_probe_${probe}`);
        }
        const sites = probeSites(module);
        expect(sites.filter((s) => s.func === 'hello_read').map((s) => s.symbol)).toEqual(
          expect.arrayContaining(['__dtrace_probe_hello__read__start', '__dtrace_probe_hello__read__done']),
        );
        for (const site of sites) expect(site.insn.replace(/^[0-9a-f]+:\s*/, '')).toMatch(callInsn);
      });

      it('carries DWARF 5 with functions, types and no host paths', () => {
        const info = tool('llvm-dwarfdump', ['--debug-info', kernel]);
        expect(info).toMatch(/version = 0x0005/);
        expect(info).toMatch(/DW_TAG_subprogram[\s\S]*?DW_AT_name\s+\("sys_read"\)/);
        expect(info).toMatch(/DW_TAG_structure_type[\s\S]*?DW_AT_name\s+\("task_struct"\)/);
        expect(info).toContain('DW_AT_comp_dir\t("/guest")');
        for (const f of [kernel, module]) expect(readFileSync(f).includes(Buffer.from('/work/'))).toBe(false);
        expect(tool('llvm-dwarfdump', ['--debug-info', module])).toMatch(/DW_AT_name\s+\("hello_read"\)/);
      });
    });
  }
});

/** Runs build.sh for one image set, writing images under `out` and objects under `buildDir`. */
function buildImageSet(name: string, out: string, buildDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(GUEST_DIR, 'build.sh'), ['--arch', name, '--out', out], {
      env: { ...process.env, GUEST_BUILD_DIR: buildDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`build.sh --arch ${name} failed: ${stderr}`))));
  });
}

describe.skipIf(missingBuild.length > 0)(`guest rebuild${missingBuild.length ? ` (skipped: ${missingBuild.join(', ')} not installed)` : ''}`, () => {
  let scratch = '';
  // The three image sets are built side by side, each by its own build.sh
  // --arch run in a build folder of its own (they share nothing but the
  // sources), so the rebuild takes the longest set's time when cores are free.
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'guest-rebuild-'));
    const builds = await Promise.allSettled(IMAGE_SETS.map(({ name }) => buildImageSet(name, join(scratch, 'images'), join(scratch, `build-${name}`))));
    for (const b of builds) if (b.status === 'rejected') throw b.reason;
    // Each set with the CLI's -h and -G runs for the programs with USDT probes: minutes on a loaded machine.
  }, 1_800_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  for (const { name } of IMAGE_SETS) {
    for (const file of ['kernel.elf', 'modules/hello.ko', 'initrd.cpio']) {
      it(`${name}/${file} matches a fresh build of the sources`, () => {
        const committed = readFileSync(join(IMAGES_DIR, name, file));
        const rebuilt = readFileSync(join(scratch, 'images', name, file));
        expect(rebuilt.equals(committed), `${name}/${file} differs: run packages/kernel/guest/build.sh and commit images/`).toBe(true);
      });
    }
  }

  const program = String.raw`
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_length(const void *a, const void *b)
{
	return (int)strlen(*(char *const *)a) - (int)strlen(*(char *const *)b);
}

int main(int argc, char **argv)
{
	char buf[64], *line = NULL, *words[] = { "ccc", "a", "bbbb", "dd" };
	size_t cap = 0;
	FILE *f = fopen(argv[1], "w+");
	char *copy = malloc(100);

	qsort(words, 4, sizeof(words[0]), by_length);
	snprintf(buf, sizeof(buf), "%s|%5d|%-4x|%c|%.2s|%lu", words[0], -42, 255, 'Z', "xyz", 1234567890UL);
	printf("%s\n", buf);
	strcpy(copy, "realloc me");
	copy = realloc(copy, 4000);
	printf("%s %zu %d\n", copy, strlen(copy), atoi("  -17"));
	fprintf(f, "line one\nline two\n");
	fclose(f);
	f = fopen(argv[1], "r");
	while (getline(&line, &cap, f) > 0)
		fputs(line, stdout);
	fclose(f);
	printf("argc=%d env=%s pid>0=%d\n", argc, getenv("GREETING"), getpid() > 0);
	return 3;
}
`;

  for (const isa of ISAS) {
    const reason = cannotRun(isa);
    it.skipIf(reason !== null)(`${isa}: a C program built with clang against the guest libc runs${reason ? ` (skipped: ${reason})` : ''}`, () => {
      const dir = mkdtempSync(join(scratch, `prog-${isa}-`));
      const lib = join(scratch, `build-${isa}`, isa, 'libc');
      const src = join(dir, 'prog.c');
      writeFileSync(src, program);
      const target = isa === 'x86_64' ? ['--target=x86_64-unknown-none-elf'] : ['--target=armv7a-none-eabi', '-marm', '-mfloat-abi=soft'];
      tool('clang', [...target, '-O2', '-ffreestanding', '-fno-builtin', '-nostdlibinc', '-fno-pic', '-I', join(GUEST_DIR, 'libc', 'include'), '-I', join(GUEST_DIR, 'include'), '-c', src, '-o', join(dir, 'prog.o')]);
      tool('ld.lld', ['-static', '-nostdlib', '-e', '_start', '-o', join(dir, 'prog'), join(lib, 'crt0.o'), join(dir, 'prog.o'), join(lib, 'libc.a')]);
      const r = runGuest(isa, join(dir, 'prog'), [join(dir, 'data.txt')], { env: { GREETING: 'hi' } });
      expect(r.stdout).toBe('a|  -42|ff  |Z|xy|1234567890\nrealloc me 10 -17\nline one\nline two\nargc=2 env=hi pid>0=1\n');
      expect(r.status).toBe(3);
    });
  }
});
