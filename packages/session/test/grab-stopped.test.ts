// dtrace -p of a stopped process sets it running, as dtrace's grab does: a
// process the running system's boot command stopped with SIGSTOP runs again
// once grabbed (the guest kernel continues it with SIGCONT at its next clock
// tick), and gets the CPU's profile samples from then on.
import { defaultOptions } from '@wdtrace/dtrace-core';
import { describe, expect, it } from 'vitest';
import { guestSession } from './guest-support.js';

describe.each(['x86_64', 'arm'] as const)('grabbing a stopped process on %s', (isa) => {
  it('continues it: it runs while traced', async () => {
    // pid 3 is cpubound, stopped by kill (pid 4); sleep (pid 5) exists once kill is done.
    const { session, collected } = await guestSession({ isa, running: { boot: '/bin/cpubound 100000 & /bin/kill -STOP 3; /bin/sleep 100' } });
    expect(session.guest!.bootUntilProcess(5)).toBe(true);
    expect(session.guest!.view.continueIfStopped(4)).toBe(false);
    expect(session.grab(3)).toBe(true);
    const program = session.compile('proc:::signal-send /args[1]->pr_pid == 3/ { printf("signal %d\\n", args[2]); } profile-997 /pid == 3/ { @ = count(); }');
    await session.run(program, { options: { ...defaultOptions(), quiet: true }, timeLimit: 200_000_000n });
    expect(collected.out).toBe('signal 18\n');
    // Continued at the first tick (10 ms): nearly all of the 200 samples are its.
    expect(Number(collected.printout.trim())).toBeGreaterThan(180);
  }, 120_000);
});
