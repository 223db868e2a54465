// vtimestamp on a booted guest of each ISA: per-thread virtual time, counted
// from the scheduler's switches (a tracepoint of the session's own at the
// sched:::off-cpu sites) and the machine's virtual clock. A thread's
// vtimestamp stands still while it is off CPU, and never moves faster than
// timestamp.
import type { Isa } from '@wdtrace/kernel';
import { describe, expect, it } from 'vitest';
import { tracepointsOf } from '@wdtrace/providers';
import { traceGuest } from './guest-support.js';

const trace = (isa: Isa, script: string, args: string[]) => traceGuest(isa, script, args, { quiet: true });

describe.each(['x86_64', 'arm'] as const)('vtimestamp on a %s guest', (isa) => {
  it('stands still while the thread sleeps off CPU, and never advances more than timestamp', async () => {
    const { out, session } = await trace(
      isa,
      'syscall::nanosleep:entry { self->v = vtimestamp; self->t = timestamp; } ' +
        'syscall::nanosleep:return /self->t/ { printf("sleep %d %d\\n", vtimestamp - self->v, timestamp - self->t); } ' +
        'syscall:::entry { self->sv = vtimestamp; self->st = timestamp; } ' +
        'syscall:::return /self->st/ { @faster = sum(vtimestamp - self->sv > timestamp - self->st); @calls = count(); @ahead = sum(vtimestamp >= timestamp); } ' +
        'END { printa("faster %@d\\n", @faster); printa("calls %@d\\n", @calls); printa("ahead %@d\\n", @ahead); }',
      ['/bin/sleep', '1'],
    );
    const sleep = /sleep (\d+) (\d+)\n/.exec(out);
    expect(sleep, out).not.toBeNull();
    const [vt, ts] = [Number(sleep![1]), Number(sleep![2])];
    // A second asleep: timestamp moved by it, vtimestamp only by the few instructions of the call on the CPU.
    expect(ts).toBeGreaterThanOrEqual(1_000_000_000);
    expect(vt).toBeGreaterThan(0);
    expect(vt).toBeLessThan(1_000_000);
    const rows = new Map(out.split('\n').filter((l) => /^\w+ \d+$/.test(l)).map((l) => l.split(' ') as [string, string]));
    expect(Number(rows.get('calls'))).toBeGreaterThan(1);
    expect(rows.get('faster')).toBe('0');
    // Counted from the session's start, a thread's vtimestamp stays below timestamp.
    expect(rows.get('ahead')).toBe('0');
    // The switch watch is gone with the session: no tracepoint is left in the kernel.
    expect(tracepointsOf(session.machine!).size).toBe(0);
  }, 120_000);

  it('counts a thread\'s time on CPU: between leaving and regaining a CPU its vtimestamp barely moves', async () => {
    // Two CPU-bound processes on one CPU take turns: each is off CPU for the other's time slices.
    const { out } = await trace(
      isa,
      'sched:::off-cpu /execname == "cpubound"/ { self->v = vtimestamp; self->t = timestamp; } ' +
        'sched:::on-cpu /self->t/ { @off = max(timestamp - self->t); @vt = max(vtimestamp - self->v); self->t = 0; } ' +
        'proc:::exit /execname == "cpubound"/ { @exit = min(timestamp - vtimestamp); } ' +
        'END { printa("off %@d\\n", @off); printa("vt %@d\\n", @vt); printa("exit %@d\\n", @exit); }',
      ['/bin/sh', '-c', '/bin/cpubound & /bin/cpubound'],
    );
    const rows = new Map(out.split('\n').filter((l) => /^\w+ \d+$/.test(l)).map((l) => l.split(' ') as [string, string]));
    // Time slices of 20 ms went by on the other process while this one's vtimestamp moved by a few microseconds at most.
    expect(Number(rows.get('off')), out).toBeGreaterThanOrEqual(10_000_000);
    expect(Number(rows.get('vt'))).toBeLessThan(100_000);
    // At exit each had been off CPU for part of the run: vtimestamp well behind timestamp.
    expect(Number(rows.get('exit'))).toBeGreaterThanOrEqual(10_000_000);
  }, 120_000);
});
