// The pid provider on booted guests of both ISAs, with real D programs on
// -c's command: entry, return and offset probes of the executable's
// functions (made on demand, `a.out` standing for the executable), every
// instruction of a function, the listing, arguments and user stacks; fork's
// child keeps none of its parent's tracepoints, other processes running the
// same file are unaffected, the traced program prints what it prints
// untraced, and after tracing its text is byte for byte the file's.
import { defaultOptions } from '@wdtrace/dtrace-core';
import { PT_LOAD, parseElf, type Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { guestSession, traceGuest } from './guest-support.js';

const ISAS: Isa[] = ['x86_64', 'arm'];
const quiet = { options: { ...defaultOptions(), quiet: true } };

describe.each(ISAS)('pid on %s', (isa) => {
  it('fires entry, return and offset probes of the -c command with its arguments and return value', async () => {
    const script = `
      pid$target:a.out:main:entry { printf("main(%d, %s)\\n", arg0, copyinstr(*(uintptr_t *)copyin(arg1 + sizeof (uintptr_t), sizeof (uintptr_t)))); }
      pid$target:a.out:main:0 { printf("%s %s %s %s\\n", probeprov, probemod, probefunc, probename); }
      pid$target:a.out:fputs:entry { printf("fputs(%s)\\n", copyinstr(arg0)); }
      pid$target:a.out:main:return { printf("main returns %d at a return site: %d\\n", arg1, arg0 > 0); }`;
    const r = await traceGuest(isa, script, ['/bin/echo', 'hi', 'there'], { quiet: true });
    expect(r.guestOut).toBe('hi there\n');
    expect(r.out).toBe('main(3, hi)\npid2 echo main 0\nfputs(hi)\nfputs(there)\nmain returns 0 at a return site: 1\n');
  });

  it('probes every instruction of a function when the name is left out, and lists them with -l', async () => {
    const { session } = await guestSession({ isa, command: ['/bin/echo', 'x'] });
    const probes = session.probes('pid2:a.out:main:');
    // return, entry, then one probe per instruction at its hex offset.
    expect(probes.slice(0, 3).map((p) => p.name)).toEqual(['return', 'entry', '0']);
    expect(probes.every((p) => p.provider === 'pid2' && p.module === 'echo' && p.function === 'main')).toBe(true);
    const offsets = probes.slice(2).map((p) => parseInt(p.name, 16));
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const listing = session.listProbes(probes.slice(0, 2));
    expect(listing).toMatch(/^ +ID +PROVIDER +MODULE +FUNCTION NAME\n +\d+ +pid2 +echo +main return\n +\d+ +pid2 +echo +main entry\n$/);

    const { out, guestOut } = await traceGuest(isa, 'pid$target:a.out:main: { @n = count(); }', ['/bin/echo', 'a', 'b', 'c']);
    expect(guestOut).toBe('a b c\n');
    // Every instruction that ran fired; a loop over 3 arguments runs more than the function has.
    expect(Number(/\d+/.exec(out.split('\n').at(-2)!)![0])).toBeGreaterThan(offsets.length);
  });

  it("reports bad offsets and names as dtrace's pid provider does", async () => {
    const { session } = await guestSession({ isa, command: ['/bin/echo', 'x'] });
    const tag = (d: string) => session.compileResult(`${d} {}`).diagnostics.map((x) => `${x.tag} ${x.message}`);
    expect(tag('pid$target:a.out:main:zz')).toEqual(['D_PROC_NAME invalid probe name: zz']);
    expect(tag('pid$target:a.out:main:100000')).toEqual(['D_PROC_OFF offset 0x100000 outside of echo:main']);
    expect(tag('pid$target:a.out:main:3')).toEqual(['D_PROC_ALIGN offset 0x3 is not aligned on an instruction']);
    expect(tag('pid$target:a.out:no_such_function:entry')).toEqual(['D_PDESC_ZERO probe description pid2:a.out:no_such_function:entry does not match any probes']);
    expect(tag('pid99:a.out:main:entry')).toEqual(['D_PDESC_ZERO probe description pid99:a.out:main:entry does not match any probes']);
  });

  it('names user frames from the executable: ustack() and ufunc()', async () => {
    const r = await traceGuest(isa, 'int done; pid$target:a.out:fputs:entry /!done/ { done = 1; ustack(); ufunc(ucaller); }', ['/bin/echo', 'x'], { quiet: true });
    expect(r.out).toMatch(/^\n +echo`fputs\n +echo`main\+0x[0-9a-f]+\n +echo`__libc_start\+0x[0-9a-f]+\n +echo`_start\+0x[0-9a-f]+\n +echo`main +$/);
  });

  it('reads user registers with uregs[] at a pid probe and in a system call, and faults on a number that names none', async () => {
    const script = `
      pid$target:a.out:main:entry { printf("%d", (uregs[R_SP] & 3) == 0); ufunc(uregs[R_PC]); }
      syscall::write:entry /pid == $target/ { ufunc(uregs[R_PC]); }
      pid$target:a.out:main:return { trace(uregs[60]); }`;
    const r = await traceGuest(isa, script, ['/bin/echo', 'x'], { quiet: true });
    // At main's entry the pc is main's first instruction; in write(2) it is in the system-call stub that entered the kernel.
    expect(r.out).toMatch(/^1 +echo`main +echo`__syscall +dtrace: error on enabled probe ID 3 \(ID \d+: pid2:echo:main:return\): illegal operation in action #1 at DIF offset \d+\n/);
  });

  it("gives a forked child none of its parent's tracepoints", async () => {
    // forkheavy's children run the same text after fork and exit with i % 256; their statuses add up to 3.
    const r = await traceGuest(isa, 'pid$target:a.out::entry { @[pid == $target] = count(); }', ['/bin/forkheavy', '3'], { quiet: true });
    expect(r.guestOut).toBe('forkheavy children=3 status_sum=3\n');
    expect(r.out).toMatch(/^ +1 +\d+\n$/);
  });

  it('leaves other processes running the same file unaffected', async () => {
    const command = ['/bin/sh', '-c', "sh -c 'echo inner; echo a | wc -c'; echo outer $?"];
    const r = await traceGuest(isa, 'pid$target:a.out::entry { @[pid] = count(); }', command, { quiet: true });
    expect(r.guestOut).toBe('inner\n      2\nouter 0\n');
    // Only the traced shell's probes fired: its child shell runs the same file without tracepoints.
    expect(r.out).toMatch(/^ +2 +\d+\n$/);
  }, 180_000);

  it('leaves the output unchanged with every probe of the program enabled', async () => {
    const command = ['/bin/sort', '/etc/passwd'];
    const plain = await guestSession({ isa, command });
    await plain.session.machine!.runUntilPowerOff({ instructions: 2_000_000_000 });
    const r = await traceGuest(isa, 'pid$target:a.out:: { @ = count(); }', command, { quiet: true });
    expect(plain.collected.guestOut).toMatch(/^root:/);
    expect(r.guestOut).toBe(plain.collected.guestOut);
    expect(Number(r.out.trim())).toBeGreaterThan(1000);
  }, 180_000);

  it("restores the process's text to the file's bytes once tracing ends", async () => {
    const { session } = await guestSession({ isa, command: ['/bin/sleep', '1'] });
    const program = session.compile('pid$target:a.out:: {} syscall::nanosleep:entry /pid == $target/ { exit(0); }');
    await session.run(program, quiet);
    const machine = session.machine!;
    const view = session.guest!.view;
    const root = view.processRoot(2);
    expect(root).toBeDefined();
    const file = session.guest!.providers.pid.processOf(2)!.image.bytes;
    const elf = parseElf(file);
    let compared = 0;
    for (const ph of elf.programHeaders) {
      if (ph.type !== PT_LOAD || (ph.flags & 1) === 0) continue; // PF_X
      expect(machine.readUserText(root!, ph.vaddr, ph.filesz)).toEqual(file.subarray(ph.offset, ph.offset + ph.filesz));
      compared += ph.filesz;
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

describe('pid on ARM conditional instructions', () => {
  it('fires a probe on a conditional instruction only when its condition passes', async () => {
    // echo's main has conditional instructions that only `-n` makes execute (clang turns
    // `newline = 0` into a conditional move); their breakpoints carry the condition.
    const { session } = await guestSession({ isa: 'arm', command: ['/bin/echo', 'a'] });
    session.probes('pid2:a.out:main:');
    const image = session.guest!.providers.pid.processOf(2)!.image;
    const main = image.function('main')!;
    const conditional = image
      .decode(main)
      .insns.filter((i) => i.cond !== undefined && i.cond < 14 && !i.classes.has('branch') && i.encoding !== 'B' && i.encoding !== 'BL')
      .map((i) => (i.address - main.address).toString(16));
    expect(conditional.length).toBeGreaterThan(0);
    const script = conditional.map((o) => `pid$target:a.out:main:${o}`).join(', ') + ' { @[probename] = count(); } pid$target:a.out:main:entry { @[probename] = count(); }';
    const plain = await traceGuest('arm', script, ['/bin/echo', 'a'], { quiet: true });
    const withN = await traceGuest('arm', script, ['/bin/echo', '-n', 'a'], { quiet: true });
    expect(plain.guestOut).toBe('a\n');
    expect(withN.guestOut).toBe('a');
    const fired = (out: string) => [...out.matchAll(/^ +(\w+) +(\d+)$/gm)].map((m) => m[1]).filter((n) => n !== 'entry');
    // Without -n the conditions fail: only entry fired; with it, some conditional instruction ran and fired.
    expect(plain.out).toMatch(/entry +1/);
    expect(fired(plain.out)).toEqual([]);
    expect(fired(withN.out).length).toBeGreaterThan(0);
  });
});

describe('pid on the Thumb-2 ARM guest', () => {
  it('fires entry, return and offset probes of Thumb functions, and every instruction of one', async () => {
    const script = `
      pid$target:a.out:main:entry { printf("main(%d, %s)\\n", arg0, copyinstr(*(uintptr_t *)copyin(arg1 + sizeof (uintptr_t), sizeof (uintptr_t)))); }
      pid$target:a.out:main:0 { printf("%s %s %s %s\\n", probeprov, probemod, probefunc, probename); }
      pid$target:a.out:fputs:entry { printf("fputs(%s)\\n", copyinstr(arg0)); }
      pid$target:a.out:main:return { printf("main returns %d at a return site: %d\\n", arg1, arg0 > 0); }`;
    const r = await traceGuest('arm', script, ['/bin/echo', 'hi', 'there'], { quiet: true, thumb: true });
    expect(r.guestOut).toBe('hi there\n');
    expect(r.out).toBe('main(3, hi)\npid2 echo main 0\nfputs(hi)\nfputs(there)\nmain returns 0 at a return site: 1\n');
    // Every instruction of main (16- and 32-bit ones, IT blocks included) traced, the output unchanged.
    const all = await traceGuest('arm', 'pid$target:a.out:main: { @n = count(); }', ['/bin/echo', 'a', 'b', 'c'], { thumb: true });
    expect(all.guestOut).toBe('a b c\n');
    expect(Number(/\d+/.exec(all.out.split('\n').at(-2)!)![0])).toBeGreaterThan(20);
  });
});
