// /proc and the system calls real programs need, on the guest kernel of each
// ISA: the Linux files under /proc (per process and the machine's), read by
// the guest's own tools and by Debian's busybox-static ps (amd64), and
// sysprobe's checks of links, attributes, sizes, *at calls, limits,
// accounting, interval timers, poll/select, prctl and SIGFPE's siginfo
// against Linux's results and errno.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ISAS } from '../src/index.js';
import { runMachine, type GuestMachineOptions } from './machine-support.js';

type Isa = (typeof ISAS)[number];

const script = (isa: Isa, text: string, options: GuestMachineOptions = {}) =>
  runMachine(isa, ['/bin/sh', '/etc/test.sh'], { ...options, files: [...(options.files ?? []), { path: '/etc/test.sh', data: new TextEncoder().encode(`${text}\n`) }] });

describe.each(ISAS)('%s guest: /proc', (isa) => {
  it('shows a process stopped by SIGSTOP as T (stopped) in its stat and status', async () => {
    const r = await script(isa, 'sleep 5 & p=$!; kill -STOP $p; sleep 0; read a b c rest < /proc/$p/stat; echo $c; grep State /proc/$p/status; kill -KILL $p; wait $p');
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('T');
    expect(lines[1]).toBe('State:\tT (stopped)');
  });
  it('has a directory per process with stat, status, cmdline, comm and exe, plus self, uptime and meminfo', async () => {
    const r = await script(isa, [
      'ls /proc',
      'ls /proc/1',
      'wc -c < /proc/1/cmdline',
      'cat /proc/1/comm',
      'head -n 3 /proc/1/status',
      'cat /proc/1/stat',
      'cat /proc/self/stat',
      'cat /proc/uptime',
      'head -n 2 /proc/meminfo',
      'stat /proc/self | head -n 2',
      'ls -l /proc/1 | grep exe',
      'sleep 5 & ls /proc; kill $!; wait $!; ls /proc',
    ].join('; '));
    expect(r.status).toBe(0);
    const lines = r.output.split('\n');
    // init (1) and the shell (2) are alive; ls itself is the third process.
    expect(lines.slice(0, 8)).toEqual(['1', '2', '3', 'meminfo', 'self', 'tasks', 'uptime', 'cmdline']);
    expect(lines.slice(8, 12)).toEqual(['comm', 'exe', 'stat', 'status']);
    expect(lines[12].trim()).toBe(String('/sbin/init\0/bin/sh\0/etc/test.sh\0'.length));
    expect(lines[13]).toBe('init');
    expect(lines.slice(14, 17)).toEqual(['Name:\tinit', 'Umask:\t0022', 'State:\tS (sleeping)']);
    // pid (comm) state ppid pgrp session tty tpgid flags ... 52 fields, as Linux's.
    const initStat = lines[17].split(' ');
    expect(initStat.slice(0, 5)).toEqual(['1', '(init)', 'S', '0', '1']);
    expect(initStat.length).toBe(52);
    const catStat = lines[18].split(' ');
    expect(catStat.slice(1, 4)).toEqual(['(cat)', 'R', '2']);
    expect(catStat.length).toBe(52);
    expect(lines[19]).toMatch(/^\d+\.\d\d \d+\.\d\d$/);
    expect(lines[20]).toMatch(/^MemTotal: +\d+ kB$/);
    expect(lines[21]).toMatch(/^MemFree: +\d+ kB$/);
    expect(lines[22]).toMatch(/^ {2}File: \/proc\/self$/);
    expect(lines[24]).toBe('lrwxrwxrwx        0 exe -> /sbin/init');
    // The background sleep has a directory while it runs, none once reaped.
    // (ls sorts names as text.) Before: init, sh, sleep, ls; after: init, sh, ls.
    const [before, after] = lines.slice(25).join(' ').split(' meminfo self tasks uptime ');
    expect(before.split(' ').sort()).toEqual(expect.arrayContaining(['1', '2']));
    expect(before.split(' ').length).toBe(4);
    expect(after.split(' ').length).toBe(3);
  });

  it('sysprobe: links, attributes, sizes, *at calls, limits, accounting, timers, poll/select, prctl and SIGFPE behave as on Linux', async () => {
    const r = await runMachine(isa, ['/bin/sysprobe']);
    expect(r.status).toBe(0);
    expect(r.output).toBe(SYSPROBE(isa));
  });
});

const SYSPROBE = (isa: Isa) => [
  '== proc',
  'exe = /bin/sysprobe',
  'self is getpid: yes',
  'stat pid is getpid: yes, comm (sysprobe)',
  'cmdline = /bin/sysprobe|',
  'readlink short buffer = 4',
  'readlink not a link = -1 EINVAL',
  'readlink size 0 = -1 EINVAL',
  'open /proc/999/stat = -1 ENOENT',
  '== links',
  'symlink = 0',
  'symlink again = -1 EEXIST',
  'readlink = 7 sp.file',
  'lstat link: mode 120777 nlink 1 uid 0 gid 0 size 7',
  'stat link: mode 100644 nlink 1 uid 0 gid 0 size 6',
  'read through link = hello',
  'symlink loop = 0',
  'open loop = -1 ELOOP',
  'symlink dangling = 0',
  'open dangling = -1 ENOENT',
  'link = 0',
  'stat hard link: mode 100644 nlink 2 uid 0 gid 0 size 6',
  'link existing = -1 EEXIST',
  'link directory = -1 EPERM',
  'unlink file = 0',
  'read hard link = hello',
  'open via dangling link now = -1 ENOENT',
  'readlink missing = -1 ENOENT',
  '== attrs',
  'chmod = 0',
  'after chmod: mode 100600 nlink 1 uid 0 gid 0 size 0',
  'fchmod = 0',
  'after fchmod: mode 104751 nlink 1 uid 0 gid 0 size 0',
  'fchmodat = 0',
  'chown = 0',
  'after chown: mode 100640 nlink 1 uid 12 gid 34 size 0',
  'fchown keep uid = 0',
  'after fchown: mode 100640 nlink 1 uid 12 gid 56 size 0',
  'chmod missing = -1 ENOENT',
  'fchmod bad fd = -1 EBADF',
  'utimensat = 0',
  'atime 1000000000.500000000 mtime 1700000000.250000000',
  'utimensat omit atime = 0',
  'atime 1000000000 mtime 5',
  'utimensat bad nsec = -1 EINVAL',
  'statx = 0',
  'statx: mask 0x7ff mode 100640 uid 12 gid 56 size 0 mtime 5.000000000',
  'statx AT_EMPTY_PATH = 0',
  'statx of the fd: mode 100640',
  'statx bad flags = -1 EINVAL',
  'statx reserved mask = -1 EINVAL',
  'statx missing = -1 ENOENT',
  'utimensat bad flags = -1 EINVAL',
  '== size',
  'ftruncate 4 = 0',
  'size 4',
  'ftruncate 8 = 0',
  'read 8: 30 31 32 33 00 00 00 00',
  'ftruncate negative = -1 EINVAL',
  'ftruncate read-only fd = -1 EINVAL',
  'ftruncate bad fd = -1 EBADF',
  'truncate 2 = 0',
  'after truncate: mode 100644 nlink 1 uid 0 gid 0 size 2',
  'truncate directory = -1 EISDIR',
  '== at',
  'openat relative = 0',
  'read = at',
  'mkdirat = 0',
  'sub: mode 40755 nlink 2 uid 0 gid 0 size 0',
  'symlinkat = 0',
  'readlinkat = 5',
  'openat on a file fd = -1 ENOTDIR',
  'openat bad fd = -1 EBADF',
  'openat absolute ignores fd = 0',
  'unlinkat = 0',
  'unlinkat dir = 0',
  '== limits',
  'getrlimit NOFILE = 0',
  'nofile 64 64',
  'setrlimit NOFILE 32 = 0',
  'nofile 32 64',
  'setrlimit cur > max = -1 EINVAL',
  'getrlimit 99 = -1 EINVAL',
  'prlimit64 STACK = 0',
  'stack 8388608 unlimited',
  'prlimit64 set STACK = 0',
  'stack 1048576',
  'prlimit64 no such pid = -1 ESRCH',
  'prlimit64 NOFILE above table = -1 EPERM',
  '== acct',
  'times: ticks since boot, children\'s user time counted',
  'getrusage SELF = 0',
  'getrusage CHILDREN = 0',
  'children\'s ru_utime counted',
  'getrusage 7 = -1 EINVAL',
  'sysinfo = 0',
  'sched_getaffinity = sizeof(long), 1 CPUs',
  'sched_getaffinity odd size = -1 EINVAL',
  'sched_getaffinity no such pid = -1 ESRCH',
  '== timers',
  // ARM EABI has no alarm system call (its libc uses setitimer).
  ...(isa === 'x86_64' ? ['alarm 5 = 0', 'alarm 0 (returns what was left) = 5'] : []),
  'setitimer 20ms every 20ms = 0',
  'getitimer = 0',
  'interval 0.020000',
  'setitimer off = 0',
  'SIGALRM count 3',
  'setitimer bad usec = -1 EINVAL',
  'nanosleep interrupted = -1 EINTR',
  'SIGALRM count 1',
  '== poll',
  'poll empty pipe, no wait = 0, revents 0',
  'poll write end = 1, revents 0x4',
  'poll after a write = 2, revents 0x1 0x4',
  'poll bad fd = 1, revents 0x20',
  'poll negative fd is skipped = 0, revents 0',
  'poll too many = -1 EINVAL',
  'select readable = 1, bit set',
  'select timeout = 0, bit clear, waited >= 30 ms, left 0.000000',
  'select bad fd = -1 EBADF',
  'select negative nfds = -1 EINVAL',
  'poll 40 ms on an empty pipe = 0, revents 0',
  'waited >= 40 ms',
  'poll until the child writes = 1, revents 0x1',
  'ppoll sigsetsize 4 = -1 EINVAL',
  'ppoll no wait = 0',
  'pselect6 writable = 1',
  'pselect6 with a mask, nothing readable = 0',
  'poll read end, writer gone = 1, revents 0x10',
  'poll interrupted by SIGALRM = -1 EINTR',
  'SIGALRM count 1',
  '== misc',
  'prctl PR_SET_NAME = 0',
  'comm = renamed',
  'prctl PR_GET_NAME = 0',
  'name = renamed',
  'rseq = -1 ENOSYS',
  // SIGFPE from the CPU with si_code FPE_INTDIV (1) and FPE_FLTDIV (3);
  // ARMv7-A raises no divide-by-zero exception.
  ...(isa === 'x86_64' ? [
    '== fpe',
    'handler: si_signo 8 si_code 1 si_addr at the divide',
    'child exited 0',
    'handler: si_signo 8 si_code 3 si_addr at the divss',
    'child exited 0',
    'child killed by signal 8',
  ] : []),
  '',
].join('\n');

const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p) && isStaticAmd64(p));

function isStaticAmd64(path: string): boolean {
  const b = readFileSync(path);
  if (b.length < 64 || b.toString('latin1', 0, 4) !== '\x7fELF' || b.readUInt16LE(18) !== 62) return false;
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  for (let i = 0; i < b.readUInt16LE(56); i++) if (b.readUInt32LE(phoff + i * phentsize) === 3) return false;
  return true;
}

describe.skipIf(!BUSYBOX)(`busybox-static amd64 ps on the x86-64 guest${BUSYBOX ? '' : ' (skipped: busybox-static is not installed)'}`, () => {
  it('prints the native header and one row per guest process, as the guest\'s /proc describes them', async () => {
    // The host's processes are not the guest's: the header and row format
    // come from a native run, the rows' contents from the guest's own /proc.
    const native = spawnSync(BUSYBOX!, ['ps'], { encoding: 'utf8', timeout: 60_000 });
    expect(native.status).toBe(0);
    const nativeLines = native.stdout.split('\n');
    const row = /^ {0,4}(\d+) (\S{1,8}) +(.*)$/;
    expect(nativeLines[1]).toMatch(row);
    const r = await runMachine('x86_64', ['/bin/busybox', 'sh', '/etc/ps-test.sh'], {
      files: [
        { path: '/bin/busybox', data: new Uint8Array(readFileSync(BUSYBOX!)) },
        {
          path: '/etc/ps-test.sh',
          data: new TextEncoder().encode([
            'busybox sleep 5 &',
            'busybox ps > /tmp/ps.out; echo "ps $?"',
            'busybox cat /tmp/ps.out',
            // What /proc says, in ps's own terms: pid, then the command line
            // (arguments joined by spaces) or [comm] when there is none.
            'for d in /proc/[0-9]*; do p=${d#/proc/}; c=$(busybox tr "\\0" " " < $d/cmdline); echo "proc $p ${c% }"; done',
            'kill $!',
          ].join('\n') + '\n'),
        },
      ],
    });
    expect(r.status).toBe(0);
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('ps 0');
    expect(lines[1]).toBe(nativeLines[0]);
    const rows = lines.slice(2).filter((l) => row.test(l));
    const procRows = lines.filter((l) => l.startsWith('proc ')).map((l) => l.slice(5));
    expect(rows.map((l) => l.replace(row, '$1 $2 $3'))).toEqual([
      '1 root /sbin/init /bin/busybox sh /etc/ps-test.sh',
      '2 root /bin/busybox sh /etc/ps-test.sh',
      '3 root busybox sleep 5',
      '4 root busybox ps',
    ]);
    // Every process ps showed that still runs reads the same from /proc.
    const stillThere = rows.map((l) => l.replace(row, '$1 $3')).filter((l) => !l.endsWith(' busybox ps'));
    expect(procRows.slice(0, 3)).toEqual(stillThere);
  });
});
