// The host's looks at a guest around a run: whether a file of the guest can
// be its -c command (checked before it boots, as libdtrace does), and the
// moment a program's probes are in the kernel's text (onEnabled), when the
// live text differs from the image and the run has not yet moved on.
import { describe, expect, it } from 'vitest';
import { defaultImages } from '@wdtrace/kernel';
import { tracepointsOf } from '@wdtrace/providers';
import { guestExecProblem, guestHasFile } from '../src/index.js';
import { guestSession } from './guest-support.js';

describe.each(['x86_64', 'arm'] as const)('a %s guest', (isa) => {
  it('takes its programs as -c commands and refuses its other files', () => {
    expect(guestExecProblem(isa, '/bin/ls')).toBeUndefined();
    expect(guestExecProblem(isa, '/etc/hostname')).toBe('cannot execute file');
    expect(guestExecProblem(isa, '/bin')).toBe('cannot execute file');
    // A file the guest does not have is the caller's to look for (the CLI looks on the host).
    expect(guestExecProblem(isa, '/no/such/file')).toBeUndefined();
    expect(guestHasFile(isa, '/bin/ls')).toBe(true);
    expect(guestHasFile(isa, '/no/such/file')).toBe(false);
    // Another ISA's initrd: its programs are not this guest's.
    const other = isa === 'arm' ? 'x86_64' : 'arm';
    expect(guestExecProblem(isa, '/bin/ls', defaultImages(other).initrd)).toBe('cannot execute file');
  });

  it('tells the host when the probes are in the text, before the guest runs on', async () => {
    const { session, collected } = await guestSession({ isa, command: ['/bin/echo', 'hi'] });
    const machine = session.machine!;
    const fn = machine.symbols.byName('sys_getpid')!;
    const image = machine.readText(fn.address, fn.size).slice();
    let seen: { live: Uint8Array; original: Uint8Array; instructions: number } | undefined;
    // The kernel comes up first (run does this too): tracing starts on the running system.
    session.guest!.start();
    const booted = machine.instructions;
    expect(booted).toBeGreaterThan(0);
    const result = await session.run(session.compile('fbt::sys_getpid:entry { @ = count(); }'), {
      onEnabled: () => {
        seen = { live: machine.readText(fn.address, fn.size).slice(), original: tracepointsOf(machine).readOriginal(fn.address, fn.size), instructions: machine.instructions };
      },
    });
    expect(result.guest?.kind).toBe('poweroff');
    expect(collected.guestOut).toBe('hi\n');
    expect(seen).toBeDefined();
    expect(seen!.live).not.toEqual(image);
    expect(seen!.original).toEqual(image);
    // The guest had not run on since it came up; after the run the text is the image's again.
    expect(seen!.instructions).toBe(booted);
    expect(machine.readText(fn.address, fn.size)).toEqual(image);
  }, 120_000);
});
