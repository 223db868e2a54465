// The playground's gallery: one-liners and short scripts in the spirit of
// the DTrace guide's, adapted to the guest (its programs and its kernel's
// functions), covering every provider the guest has and the main features
// of D. Each loads in one click; the browser tests run every one on both
// ISAs and compare with the CLI. Pure data.
import type { PlaygroundState } from './state.js';

export interface GalleryExample {
  /** Stable name (the tests name examples by it). */
  readonly id: string;
  readonly title: string;
  /** What it shows, in one sentence. */
  readonly about: string;
  /** The provider or feature it is filed under. */
  readonly group: string;
  readonly state: Pick<PlaygroundState, 'source' | 'command'> & Partial<Pick<PlaygroundState, 'options' | 'cpus' | 'view'>>;
}

export const GALLERY: readonly GalleryExample[] = [
  {
    id: 'hello',
    group: 'dtrace',
    title: 'Hello, world',
    about: 'BEGIN fires first; exit() ends tracing.',
    state: { source: String.raw`BEGIN {
	printf("hello, world\n");
	exit(0);
}
`, command: '', options: '-q' },
  },
  {
    id: 'syscalls-by-process',
    group: 'syscall',
    title: 'System calls by process',
    about: 'Every system call of the guest, counted by the name of the process making it.',
    state: { source: String.raw`syscall:::entry {
	@calls[execname] = count();
}
`, command: '/bin/sh -c ls' },
  },
  {
    id: 'syscalls-of-command',
    group: 'syscall',
    title: 'System calls of the command',
    about: "A predicate on $target keeps only the -c command's calls.",
    state: { source: String.raw`syscall:::entry /pid == $target/ {
	@calls[probefunc] = count();
}
`, command: '/bin/ls /etc' },
  },
  {
    id: 'files-opened',
    group: 'syscall',
    title: 'Files opened',
    about: "copyinstr() reads the path from the process's memory at the entry probe.",
    state: { source: String.raw`syscall::openat:entry {
	printf("%s opens %s\n", execname, copyinstr(arg1));
}
`, command: '/bin/cat /etc/hostname /etc/motd', options: '-q' },
  },
  {
    id: 'open-errors',
    group: 'syscall',
    title: 'Return values and errno',
    about: 'The return probe gives the result in arg0 and the error in errno.',
    state: { source: String.raw`syscall::openat:entry /pid == $target/ {
	self->path = copyinstr(arg1);
	self->opening = 1;
}

syscall::openat:return /self->opening/ {
	printf("%-16s fd %2d errno %d\n", self->path, (int)arg0, errno);
	self->opening = 0;
}
`, command: '/bin/cat /etc/hostname /nope /etc/motd', options: '-q' },
  },
  {
    id: 'write-sizes',
    group: 'aggregations',
    title: 'Write sizes as a power-of-two histogram',
    about: 'quantize() counts values in power-of-two buckets; the chart view draws it.',
    state: { source: String.raw`syscall::write:entry /pid == $target/ {
	@bytes = quantize(arg2);
}
`, command: '/bin/ls /bin /etc', view: 'chart' },
  },
  {
    id: 'write-sizes-linear',
    group: 'aggregations',
    title: 'Write sizes, linear buckets',
    about: 'lquantize(value, low, high, step) for evenly spaced buckets.',
    state: { source: String.raw`syscall::write:entry /pid == $target/ {
	@bytes = lquantize(arg2, 0, 40, 5);
}
`, command: '/bin/ls /bin /etc', view: 'chart' },
  },
  {
    id: 'read-statistics',
    group: 'aggregations',
    title: 'count, sum, min, max, avg, stddev',
    about: 'The aggregating functions side by side, over the bytes each read() returned.',
    state: { source: String.raw`syscall::read:return /pid == $target && (int)arg0 >= 0/ {
	@n = count();
	@total = sum(arg0);
	@least = min(arg0);
	@most = max(arg0);
	@mean = avg(arg0);
	@sd = stddev(arg0);
}

END {
	printa("%@d reads, %@d bytes, %@d to %@d bytes, mean %@d, stddev %@d\n",
	    @n, @total, @least, @most, @mean, @sd);
}
`, command: '/bin/wc /etc/passwd /etc/motd', options: '-q' },
  },
  {
    id: 'by-size',
    group: 'aggregations',
    title: 'Bytes written, by process and file descriptor',
    about: 'Aggregations keyed by several values: sum() per execname and fd, printed by printa() in order of the sums.',
    state: { source: String.raw`syscall::write:entry {
	@bytes[execname, arg0] = sum(arg2);
}

END {
	printa("%-10s fd %d wrote %@d bytes\n", @bytes);
}
`, command: '/bin/sh -c ls', options: '-q' },
  },
  {
    id: 'syscall-latency',
    group: 'D',
    title: 'Time in each system call',
    about: "A thread-local variable (self->) carries the entry time to the return probe; the machine's clock is virtual, so the times repeat exactly.",
    state: { source: String.raw`syscall:::entry /pid == $target/ {
	self->ts = timestamp;
}

syscall:::return /self->ts/ {
	@ns[probefunc] = avg(timestamp - self->ts);
	self->ts = 0;
}
`, command: '/bin/ls /etc' },
  },
  {
    id: 'if-else',
    group: 'D',
    title: 'if/else and clause-local variables',
    about: 'if/else in a clause, with a this-> variable that lives for one firing.',
    state: { source: String.raw`syscall::read:return /pid == $target/ {
	this->n = (int)arg0;
	if (this->n > 100) {
		@reads["large"] = count();
	} else if (this->n > 0) {
		@reads["small"] = count();
	} else {
		@reads["end of file or error"] = count();
	}
}
`, command: '/bin/cat /etc/passwd /etc/motd' },
  },
  {
    id: 'strings',
    group: 'D',
    title: 'Strings',
    about: 'D strings and their subroutines: basename(), strlen(), strjoin(), stringof.',
    state: { source: String.raw`syscall::openat:entry /pid == $target/ {
	this->path = copyinstr(arg1);
	printf("%-14s %-10s %2d %s\n", this->path, basename(this->path), strlen(this->path),
	    strjoin(execname, strjoin(" in ", dirname(this->path))));
}
`, command: '/bin/head -n 1 /etc/passwd /etc/motd', options: '-q' },
  },
  {
    id: 'speculation',
    group: 'D',
    title: 'Speculative tracing',
    about: 'Trace every openat() speculatively; keep only the ones that fail.',
    state: { source: String.raw`syscall::openat:entry /pid == $target/ {
	self->spec = speculation();
	speculate(self->spec);
	printf("openat(\"%s\")\n", copyinstr(arg1));
}

syscall::openat:return /self->spec && errno != 0/ {
	speculate(self->spec);
	printf("  failed with errno %d\n", errno);
}

syscall::openat:return /self->spec && errno != 0/ {
	commit(self->spec);
	self->spec = 0;
}

syscall::openat:return /self->spec/ {
	discard(self->spec);
	self->spec = 0;
}
`, command: '/bin/cat /etc/hostname /nope /etc/motd /missing', options: '-q' },
  },
  {
    id: 'error-probe',
    group: 'dtrace',
    title: 'Faults and the ERROR probe',
    about: 'A bad load ends the clause, not the kernel: dtrace reports it and ERROR fires.',
    state: { source: String.raw`fbt::sys_write:entry /pid == $target/ {
	trace(*(int *)0);
}

dtrace:::ERROR {
	printf("ERROR: fault %d at DIF offset %d\n", arg4, arg3);
}
`, command: '/bin/echo hi', options: '-q' },
  },
  {
    id: 'kernel-functions',
    group: 'fbt',
    title: 'Kernel functions a command calls',
    about: 'fbt has an entry and a return probe in every kernel function.',
    state: { source: String.raw`fbt::vfs_*:entry /pid == $target/ {
	@calls[probefunc] = count();
}
`, command: '/bin/cat /etc/motd' },
  },
  {
    id: 'kernel-return-values',
    group: 'fbt',
    title: 'Return values of a kernel function',
    about: "At an fbt return probe arg1 is the return value (arg0 the return site's offset).",
    state: { source: String.raw`fbt::vfs_read:return /pid == $target/ {
	@returned[(int)arg1] = count();
}
`, command: '/bin/cat /etc/passwd', view: 'chart' },
  },
  {
    id: 'call-flow',
    group: 'fbt',
    title: 'Call flow of one system call',
    about: "With -F, entries indent and returns outdent: the kernel's path through write().",
    state: { source: String.raw`syscall::write:entry /pid == $target/ {
	self->traced = 1;
}

fbt:::entry, fbt:::return /self->traced/ {
}

syscall::write:return /self->traced/ {
	self->traced = 0;
	exit(0);
}
`, command: '/bin/echo hi', options: '-F' },
  },
  {
    id: 'kernel-stacks',
    group: 'fbt',
    title: 'Kernel stacks',
    about: 'stack() as an aggregation key: how the kernel got to console_write().',
    state: { source: String.raw`fbt::console_write:entry /pid == $target/ {
	@paths[stack()] = count();
}
`, command: '/bin/echo hi' },
  },
  {
    id: 'breakpoints',
    group: 'fbt',
    title: 'The breakpoints a probe writes',
    about: 'The live kernel text view shows the instructions fbt replaced while the probes are enabled.',
    state: { source: String.raw`fbt::sys_getpid:entry, fbt::sys_getpid:return {
	@[probename] = count();
}
`, command: '/bin/syscallheavy 3', view: 'live' },
  },
  {
    id: 'every-instruction',
    group: 'kinst',
    title: 'Every instruction of a function',
    about: 'kinst has a probe at each instruction of a kernel function, named by its offset.',
    state: { source: String.raw`kinst::sys_getpid: {
	@hits[probename] = count();
}
`, command: '/bin/syscallheavy 3' },
  },
  {
    id: 'inline-function',
    group: 'kinst',
    title: 'An inlined function',
    about: "kinst::func:entry and :return reach every inlined copy of a function, found in the kernel's DWARF.",
    state: { source: String.raw`kinst::vfs_write:entry, kinst::vfs_write:return /pid == $target/ {
	@[probefunc, probename] = count();
}
`, command: '/bin/echo hi', options: '-q' },
  },
  {
    id: 'process-lifecycle',
    group: 'proc',
    title: "Processes created, exec'd and exited",
    about: "The proc provider's probes, with psinfo_t translated arguments.",
    state: { source: String.raw`proc:::create {
	printf("%d forks %d\n", pid, args[0]->pr_pid);
}

proc:::exec-success {
	printf("%d runs %s\n", pid, execname);
}

proc:::exit {
	printf("%d exits (reason %d)\n", pid, args[0]);
}
`, command: '/bin/forkheavy 2 exec', options: '-q' },
  },
  {
    id: 'scheduler',
    group: 'sched',
    title: 'Who runs on which CPU',
    about: 'sched:::on-cpu on a two-CPU guest, counted by CPU and process.',
    state: { source: String.raw`sched:::on-cpu {
	@[cpu, execname] = count();
}
`, command: '/bin/forkheavy 3', cpus: 2 },
  },
  {
    id: 'file-io',
    group: 'io',
    title: 'File I/O',
    about: 'io:::start and io:::done with the bufinfo_t, devinfo_t and fileinfo_t the guide describes.',
    state: { source: String.raw`io:::start /pid == $target/ {
	printf("%s %d bytes of %s\n", args[0]->b_flags & B_READ ? "read" : "write",
	    args[0]->b_bcount, args[2]->fi_pathname);
}

io:::done /pid == $target/ {
	printf("  %d moved\n", args[0]->b_bcount - args[0]->b_resid);
}
`, command: '/bin/cat /etc/hostname', options: '-q' },
  },
  {
    id: 'module-probes',
    group: 'sdt',
    title: "A loadable module's static probes",
    about: "The hello module's DTRACE_PROBE sites, turned into sdt probes when krtld linked it.",
    state: { source: String.raw`sdt:hello::hello-read-start {
	printf("read %d bytes at offset %d\n", args[1], args[2]);
}
`, command: '/bin/cat /dev/hello', options: '-q' },
  },
  {
    id: 'profile',
    group: 'profile',
    title: 'Sampling the CPU',
    about: 'profile-997 fires 997 times a second of (virtual) time on each CPU; arg0 is the kernel pc, arg1 the user pc.',
    state: { source: String.raw`profile-997 /arg0/ {
	@kernel[func(arg0)] = count();
}

profile-997 /arg1/ {
	@user[ufunc(arg1)] = count();
}

END {
	trunc(@kernel, 5);
	trunc(@user, 5);
}
`, command: '/bin/cpubound 20', options: '-q', view: 'chart' },
  },
  {
    id: 'tick',
    group: 'profile',
    title: 'Timers and END',
    about: 'tick-N fires once every N on one CPU; END prints when tracing ends.',
    state: { source: String.raw`tick-100ms {
	@ticks = count();
}

tick-1s {
	exit(0);
}

END {
	printa("%@d ticks of 100ms\n", @ticks);
}
`, command: '/bin/sleep 3', options: '-q' },
  },
];

/** The state an example loads: its fields over the defaults of an empty playground. */
export function galleryState(example: GalleryExample, isa: PlaygroundState['isa']): PlaygroundState {
  return { isa, cpus: 1, options: '', view: 'output', fn: '', ...example.state };
}
