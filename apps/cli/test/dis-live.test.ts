// `wdtrace dis --live`: the guest kernel's text with probes enabled next to
// the image's, on both ISAs — fbt's int3 / DTrace breakpoint word, sdt's
// locked nop / breakpoint, kinst on a longer instruction — and the errors.
import { DTRACE_BREAKPOINT } from '@wdtrace/isa-arm-as';
import { describe, expect, it } from 'vitest';
import { runDis } from '../src/dis.js';

async function dis(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await runDis(args, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { status, stdout, stderr };
}

const image = (isa: string) => new URL(`../../../packages/kernel/guest/images/${isa}/kernel.elf`, import.meta.url);
const le = (w: number) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24].map((b) => b.toString(16).padStart(2, '0')).join(' ');

/** The lines of one function's block (after its `<name>:` header, up to the blank line). */
function block(out: string, name: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.endsWith(` <${name}>:`));
  expect(start, `${name} in\n${out}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

describe('wdtrace dis --live on the x86-64 guest kernel', () => {
  it('shows int3 at the fbt entry (push %rbp) and return (pop %rbp before ret) of sys_getpid, the rest as the image', async () => {
    const r = await dis('--live', 'fbt::sys_getpid:', '--symbol', 'sys_getpid');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Live kernel text \(x86_64\) with 2 probes enabled: fbt::sys_getpid:\n/);
    const b = block(r.stdout, 'sys_getpid');
    expect(b[0]).toMatch(/^- ffffffff[0-9a-f]{8}: 55 +\tpushq\t%rbp$/);
    expect(b[1]).toMatch(/^\+ ffffffff[0-9a-f]{8}: cc +\tint3 +<- fbt:kernel:sys_getpid:entry$/);
    expect(b.filter((l) => l.startsWith('+')).length).toBe(2);
    const ret = b.findIndex((l) => l.includes('<- fbt:kernel:sys_getpid:return'));
    expect(b[ret - 1]).toMatch(/: 5d +\tpopq\t%rbp$/);
    expect(b[ret + 1]).toMatch(/: c3 +\tretq$/);
    expect(r.stdout).toMatch(/\n2 instructions patched in 1 function shown\.\n$/);
    // Unmarked and '-' lines are `wdtrace dis` of the image file (which goes on over the padding up to the next symbol).
    const file = await dis(image('x86_64').pathname, '--symbol', 'sys_getpid');
    const imageLines = b.filter((l) => !l.startsWith('+')).map((l) => l.slice(2));
    expect(block(file.stdout, 'sys_getpid').slice(0, imageLines.length)).toEqual(imageLines);
  }, 120_000);

  it('shows the locked nop of enabled sdt sites, and lists only the patched functions without --symbol', async () => {
    const r = await dis('--live', 'sdt:kernel:sys_write:file-write-start');
    expect(r.status).toBe(0);
    expect(r.stdout.match(/ <[\w`]+>:\n/g)).toEqual([' <sys_write>:\n']);
    const b = block(r.stdout, 'sys_write');
    const i = b.findIndex((l) => l.startsWith('+'));
    expect(b[i - 1]).toMatch(/^- [0-9a-f]+: 0f 1f 44 00 00 +\tnopl\t\(%rax,%rax\)$/);
    expect(b[i]).toMatch(/^\+ [0-9a-f]+: f0 0f 1f 40 00 +\tlock\t\tnopl\t\(%rax\) +<- sdt:kernel:sys_write:file-write-start$/);
  }, 120_000);

  it('shows kinst on a longer instruction as int3 and the tail never fetched; fbt and kinst at one address both named', async () => {
    const r = await dis('--live', 'kinst::sys_getpid:1', '--live', 'kinst::sys_getpid:0', '--live', 'fbt::sys_getpid:entry');
    expect(r.status).toBe(0);
    const b = block(r.stdout, 'sys_getpid');
    expect(b[1]).toMatch(/^\+ [0-9a-f]+: cc +\tint3 +<- fbt:kernel:sys_getpid:entry, kinst:kernel:sys_getpid:0$/);
    expect(b[2]).toMatch(/^- [0-9a-f]+: 48 89 e5 +\tmovq\t%rsp, %rbp$/);
    expect(b[3]).toMatch(/^\+ [0-9a-f]+: cc +\tint3 +<- kinst:kernel:sys_getpid:1$/);
    expect(b[4]).toMatch(/^\+ [0-9a-f]+: 89 e5 +\t\(rest of the displaced instruction: not fetched\)$/);
  }, 120_000);

  it("shows the dispatcher's SDT sites for a syscall probe", async () => {
    const r = await dis('--live', 'syscall::getpid:entry');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(' <do_syscall>:\n');
    expect(r.stdout).toMatch(/\n\+ [0-9a-f]+: f0 0f 1f 40 00 +\tlock\t\tnopl\t\(%rax\) +<- sdt:kernel:do_syscall:syscall-entry\n/);
  }, 120_000);
});

describe('wdtrace dis --live on the ARM guest kernel', () => {
  it('shows the DTrace breakpoint word at the fbt entry and return of sys_getpid', async () => {
    const r = await dis('--live', 'fbt::sys_getpid:', '--arch', 'arm', '--symbol', 'sys_getpid');
    expect(r.status).toBe(0);
    const b = block(r.stdout, 'sys_getpid');
    // 0xe7f000f0 | cond, the displaced instruction's condition (AL here).
    const bkpt = le((DTRACE_BREAKPOINT | 0xe) >>> 0);
    expect(b[0]).toMatch(/^- c0[0-9a-f]{6}: 00 48 2d e9  \tpush\t\{r11, lr\}$/);
    expect(b[1]).toMatch(new RegExp(`^\\+ c0[0-9a-f]{6}: ${bkpt}  \\tudf\\t#14 +<- fbt:kernel:sys_getpid:entry$`));
    const ret = b.findIndex((l) => l.includes('<- fbt:kernel:sys_getpid:return'));
    expect(b[ret - 1]).toMatch(/\tpop\t\{r11, pc\}$/);
    expect(b[ret]).toContain(`: ${bkpt}  \tudf\t#14`);
    const file = await dis(image('arm').pathname, '--symbol', 'sys_getpid');
    const imageLines = b.filter((l) => !l.startsWith('+')).map((l) => l.slice(2));
    expect(block(file.stdout, 'sys_getpid').slice(0, imageLines.length)).toEqual(imageLines);
  }, 120_000);

  it('shows the breakpoint over the nop of an sdt site', async () => {
    const r = await dis('--live', 'sdt:kernel:sys_write:file-write-start', '--arch', 'arm');
    expect(r.status).toBe(0);
    const b = block(r.stdout, 'sys_write');
    const i = b.findIndex((l) => l.startsWith('+'));
    expect(b[i - 1]).toMatch(/^- c0[0-9a-f]{6}: 00 f0 20 e3  \tnop$/);
    expect(b[i]).toMatch(/^\+ c0[0-9a-f]{6}: fe 00 f0 e7  \tudf\t#14 +<- sdt:kernel:sys_write:file-write-start$/);
  }, 120_000);

  it('names probes in a module with its name', async () => {
    const r = await dis('--live', 'fbt:hello:hello_open:entry', '--arch', 'arm');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\n[0-9a-f]{8} <hello`hello_open>:\n/);
    expect(r.stdout).toContain('<- fbt:hello:hello_open:entry');
  }, 120_000);
});

describe('wdtrace dis --live errors', () => {
  it('reports a description that matches nothing, a bad kinst offset, an unknown symbol, a FILE with --live, no FILE', async () => {
    const none = await dis('--live', 'fbt::no_such_function:');
    expect(none).toEqual({ status: 1, stdout: '', stderr: "wdtrace dis: description 'fbt::no_such_function:' matched no kernel probe\n" });
    const offset = await dis('--live', 'kinst::sys_getpid:2');
    expect(offset.status).toBe(1);
    expect(offset.stderr).toBe("wdtrace dis: description 'kinst::sys_getpid:2': kinst: offset 2 of sys_getpid is not an instruction boundary (instructions near it start at 0, 1, 4, 9)\n");
    const sym = await dis('--live', 'fbt::sys_getpid:', '--symbol', 'no_such_function');
    expect(sym).toEqual({ status: 1, stdout: '', stderr: "wdtrace dis: no function 'no_such_function' in the guest kernel or its modules\n" });
    const both = await dis('--live', 'fbt::sys_getpid:', 'kernel.elf');
    expect(both).toEqual({ status: 2, stdout: '', stderr: "wdtrace dis: --live lists the guest kernel's text and takes no FILE ('kernel.elf')\n" });
    const neither = await dis();
    expect(neither).toEqual({ status: 2, stdout: '', stderr: "wdtrace dis: missing required argument 'file'\n" });
  }, 120_000);

  it('is in the help of wdtrace dis', async () => {
    const help = await dis('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('wdtrace dis --live PROBE-DESCRIPTION [--arch x86_64|arm] [--symbol NAME]...');
    expect(help.stdout).toContain('--live <probe>');
  });
});

describe('wdtrace dis --live --thumb on the Thumb-2 guest kernel', () => {
  it('shows udf #0xf0 over 16-bit instructions, udf.w inside an IT block, and the sdt site', async () => {
    const r = await dis('--live', 'fbt::memcmp:return', '--live', 'kinst::memcmp:12', '--thumb');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Live kernel text \(arm, Thumb-2\) with 2 probes enabled: fbt::memcmp:return, kinst::memcmp:12\n/);
    const b = block(r.stdout, 'memcmp');
    const it = b.findIndex((l) => /\titt\tne$/.test(l));
    expect(b[it + 1]).toMatch(/^- [0-9a-f]{8}: a3 eb 0c 00  \tsubne\.w\tr0, r3, r12$/);
    expect(b[it + 2]).toMatch(/^\+ [0-9a-f]{8}: f0 f7 f0 a0  \tudf\.w\t#240 +<- kinst:kernel:memcmp:12$/);
    expect(b[it + 3]).toMatch(/^- [0-9a-f]{8}: 70 47 +\tbxne\tlr$/);
    expect(b[it + 4]).toMatch(/^\+ [0-9a-f]{8}: f0 de +\tudf\t#240 +<- fbt:kernel:memcmp:return$/);
    const s = await dis('--live', 'sdt:::file-read-start', '--thumb', '--symbol', 'sys_read');
    const site = block(s.stdout, 'sys_read').findIndex((l) => l.includes('<- sdt:kernel:sys_read:file-read-start'));
    expect(block(s.stdout, 'sys_read')[site - 1]).toMatch(/^- [0-9a-f]{8}: af f3 00 80  \tnop\.w$/);
    expect(block(s.stdout, 'sys_read')[site]).toMatch(/^\+ [0-9a-f]{8}: f0 f7 f0 a0  \tudf\.w\t#240 /);
  });
});
