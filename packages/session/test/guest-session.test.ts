// D programs on a booted guest, end to end: the real compiler, the framework,
// the kernel providers patching the running kernel of each ISA, the guest's
// own structures behind execname and pid, and stacks walked in guest memory.
import { describe, expect, it } from 'vitest';
import { defaultOptions } from '@wdtrace/dtrace-core';
import { defaultImages, type Isa } from '@wdtrace/kernel';
import { guestSession, traceGuest } from './guest-support.js';

const trace = (isa: Isa, script: string, args: string[]) => traceGuest(isa, script, args);

describe.each(['x86_64', 'arm'] as const)('tracing a booted %s guest', (isa) => {
  it('counts kernel function calls by the guest process name, and the program runs as untraced', async () => {
    const { out, guestOut, run } = await trace(
      isa,
      'fbt::sys_write:entry /execname == "echo"/ { @calls[execname, probefunc] = count(); } proc:::exec /execname == "sh"/ { @execs = count(); }',
      ['/bin/sh', '-c', 'echo hi; echo there'],
    );
    expect(guestOut).toBe('hi\nthere\n');
    expect(run.guest).toEqual({ kind: 'poweroff', status: 0 });
    // dtrace(1)'s notice on standard error that the -c command has exited, then the aggregations.
    expect(out).toBe('dtrace: pid 2 has exited\n  echo                                                sys_write                                                         2\n                2\n');
  }, 120_000);

  it('gives each clause of a firing the errno and the names of that firing\'s thread', async () => {
    const { out, guestOut } = await trace(
      isa,
      'syscall::openat:return /execname == "cat"/ { @e[execname, errno, (int)arg0] = count(); } syscall::openat:return /execname == "cat" && pid != ppid/ { @n[execname, errno] = count(); }',
      ['/bin/cat', '/nonexistent', '/etc/passwd'],
    );
    expect(guestOut).toBe('cat: /nonexistent: No such file or directory\nroot:x:0:0:root:/:/bin/sh\n');
    expect(out).toBe(
      'dtrace: pid 2 exited with status 1\n' +
        '  cat                                                       0        3                1\n' +
        '  cat                                                       2       -1                1\n' +
        '  cat                                                       0                1\n' +
        '  cat                                                       2                1\n',
    );
  }, 120_000);

  it('names user addresses inside the program\'s segments only (Pobjname: no object for an unmapped address)', async () => {
    const { out } = await trace(
      isa,
      'syscall::write:entry /execname == "echo"/ { @f[ufunc(0)] = count(); @m[umod(0)] = count(); @s[umod(ustackdepth > 0 ? ucaller : 0)] = count(); }',
      ['/bin/echo', 'hi'],
    );
    const keys = out.split('\n').map((l) => l.trim().split(/\s+/)[0]).filter((k) => k !== undefined && k !== '');
    expect(keys.filter((k) => k === '0x0')).toHaveLength(2);
    expect(keys).toContain('echo');
  }, 120_000);

  it('walks the kernel stack at an fbt entry probe from the caller outwards', async () => {
    const { out, run } = await trace(isa, 'fbt::sys_write:entry /execname == "echo"/ { stack(); exit(0); }', ['/bin/echo', 'hi']);
    expect(run.status).toBe(0);
    const frames = out.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('kernel`'));
    expect(frames.some((f) => f.startsWith('kernel`sys_write'))).toBe(false);
    expect(frames.length).toBeGreaterThan(1);
  }, 120_000);

  it('keeps virtual time on 2 CPUs: a handled probe trap does not end the CPU\'s turn', async () => {
    const run = async (script: string) => {
      const { session, collected } = await guestSession({ isa, cpus: 2, command: ['/bin/syscallheavy', '200'] });
      const r = await session.run(session.compile(script));
      return { guestOut: collected.guestOut, at: r.stoppedAt };
    };
    const plain = await run('BEGIN { }');
    const traced = await run('syscall:::entry { @ = count(); }');
    expect(traced.guestOut).toBe(plain.guestOut);
    // Each firing costs no guest time; before, every trap handed the turn to the other CPU, whose full slice went by.
    expect(Number(traced.at)).toBeLessThan(Number(plain.at) * 1.1);
  }, 120_000);

  it('enables the probes of a module loaded while tracing runs (retained enablings)', async () => {
    const { session, collected } = await guestSession({ isa, command: ['/bin/sh', '-c', 'sleep 1; cat /dev/hello'], machine: { modules: [] } });
    const script = 'sdt:hello::hello-open { @opens[execname] = count(); }';
    // No hello module yet: the description matches nothing (-Z).
    const program = session.compile(script, { zdefs: true });
    expect(session.probes('sdt:hello::hello-open')).toHaveLength(0);
    let loaded = false;
    const r = await session.run(program, {
      options: { ...defaultOptions(), zdefs: true },
      yield: async () => {
        if (!loaded) {
          loaded = true;
          session.machine!.loadModule(defaultImages(isa).modules['hello']!, 'hello');
        }
      },
    });
    expect(collected.guestOut).toContain('Hello');
    expect(collected.printout).toMatch(/^ {2}cat {2,}1\n$/);
    expect(r.aggregations).toEqual([{ name: 'opens', function: 'count', keyTypes: ['string'], rows: [{ keys: ['cat'], value: 1n }] }]);
  }, 120_000);
});

