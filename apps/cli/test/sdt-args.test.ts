// Typed arguments of the guest kernel's static probes from the command line:
// -lv lists the C types written at the sites, or for the proc, sched and io
// probes the types they are translated to (psinfo_t *, bufinfo_t * ...), and
// D's args[N] has those types (struct members, integer types, the number of
// arguments), for the kernel and the hello module, on a booted guest of each
// ISA.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';


/** The "Argument Types" block of a -lv listing. */
const argumentTypes = (listing: string): string => listing.slice(listing.indexOf('\tArgument Types\n'));

describe.each(['x86_64', 'arm'])('sdt probe arguments on a %s guest', (arch) => {
  it('-lv lists the types written at the sites', async () => {
    const exec = await wdtrace('--arch', arch, '-lv', '-n', 'proc:::exec');
    expect(exec.status).toBe(0);
    expect(exec.stdout).toMatch(/^ {3}ID {3}PROVIDER {12}MODULE {26}FUNCTION NAME\n +\d+ +proc +kernel +do_execve_common exec\n/);
    expect(argumentTypes(exec.stdout)).toBe('\tArgument Types\n\t\targs[0]: const char *\n\n');

    const ret = await wdtrace('--arch', arch, '-lv', '-n', 'sdt:::syscall-return');
    expect(argumentTypes(ret.stdout)).toBe('\tArgument Types\n\t\targs[0]: unsigned long\n\t\targs[1]: const char *\n\t\targs[2]: long\n\n');
    // Translated arguments are listed with their translated types, as dtrace -lv shows them.
    const io = await wdtrace('--arch', arch, '-lv', '-n', 'io::vfs_read:start');
    expect(argumentTypes(io.stdout)).toBe('\tArgument Types\n\t\targs[0]: bufinfo_t *\n\t\targs[1]: devinfo_t *\n\t\targs[2]: fileinfo_t *\n\n');
    const create = await wdtrace('--arch', arch, '-lv', '-n', 'proc:::create');
    expect(argumentTypes(create.stdout)).toBe('\tArgument Types\n\t\targs[0]: psinfo_t *\n\n');
    const send = await wdtrace('--arch', arch, '-lv', '-n', 'proc::send_signal:signal-send');
    expect(argumentTypes(send.stdout)).toBe('\tArgument Types\n\t\targs[0]: lwpsinfo_t *\n\t\targs[1]: psinfo_t *\n\t\targs[2]: int\n\n');
    const enqueue = await wdtrace('--arch', arch, '-lv', '-n', 'sched::enqueue_task:enqueue');
    expect(argumentTypes(enqueue.stdout)).toBe('\tArgument Types\n\t\targs[0]: lwpsinfo_t *\n\t\targs[1]: psinfo_t *\n\t\targs[2]: cpuinfo_t *\n\t\targs[3]: int\n\n');
    // A probe without arguments has no types, as before.
    const onCpu = await wdtrace('--arch', arch, '-lv', '-n', 'sched:::on-cpu');
    expect(argumentTypes(onCpu.stdout)).toMatch(/^\tArgument Types\n\t\tNone\n/);
  }, 120_000);

  it('types args[]: struct members, integers, and no argument past the last', async () => {
    const r = await wdtrace(
      '--arch', arch, '-q',
      '-n', 'proc:::create { printf("create pid %d parent %s\\n", args[0]->pr_pid, args[0]->pr_fname); }',
      '-n', 'proc:::exit { printf("exit %d\\n", args[0]); }',
      '-n', 'io:::start /args[0]->b_flags & B_WRITE && args[2]->fi_fs == "specfs"/ { @writes[args[0]->b_bcount] = count(); }',
      '-c', '/bin/sh -c /bin/echo',
    );
    expect(r.stderr).toBe('');
    // The shell (pid 2, traced from its exec as dtrace -c traces its command) forks echo (pid 3);
    // write(1, "\n", 1): the io:::start key is a size_t, 8 bytes on x86-64 and 4 on ARM, printed as such.
    const key = arch === 'x86_64' ? '                1' : '        1';
    expect(r.stdout).toBe(`\ncreate pid 3 parent sh\nexit 1\nexit 1\n\n${key}                1\n`);
    expect(r.status).toBe(0);

    const past = await wdtrace('--arch', arch, '-q', '-n', 'proc:::exec { trace(args[1]); }', '-c', '/bin/true');
    expect(past.stderr).toBe('dtrace: invalid probe specifier proc:::exec { trace(args[1]); }: line 1: index 1 is out of range for proc:kernel:do_execve_common:exec args[ ]\n');
    expect(past.status).toBe(1);
  }, 120_000);

  it('types the probes of the hello module, loaded at boot', async () => {
    const list = await wdtrace('--arch', arch, '-lv', '-n', 'sdt:hello::hello-read-start');
    expect(list.stdout).toMatch(/^ +\d+ +sdt +hello +hello_read hello-read-start\n/m);
    expect(argumentTypes(list.stdout)).toBe('\tArgument Types\n\t\targs[0]: struct file *\n\t\targs[1]: size_t\n\t\targs[2]: off_t\n\n');
    const r = await wdtrace('--arch', arch, '-q', '-n', 'sdt:hello::hello-read-start { printf("read %d at %d\\n", args[1], args[2]); }', '-c', '/bin/cat /dev/hello');
    expect(r.stdout).toBe('Hello, world! (read 1, pid 2)\nread 4096 at 0\nread 4096 at 30\n\n');
    expect(r.status).toBe(0);
  }, 120_000);
});
