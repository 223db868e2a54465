// The guest libc and user programs are Linux-ABI static executables, so they
// are tested here on the host: x86-64 natively, ARM under qemu-arm. This is
// the same code that later runs on the guest kernel.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISAS, cannotRun, extractInitrd, findTool, readCpio, runGuest, IMAGES_DIR, type Isa } from './guest-support.js';
import { rmSync } from 'node:fs';

describe('initrd layout', () => {
  for (const isa of ISAS) {
    it(`${isa}: has init, the programs, /etc and the device nodes`, () => {
      const entries = readCpio(readFileSync(join(IMAGES_DIR, isa, 'initrd.cpio')));
      const names = entries.map((e) => e.name);
      for (const p of ['sbin/init', 'bin/sh', 'bin/echo', 'bin/cat', 'bin/ls', 'bin/wc', 'bin/sort', 'bin/head', 'bin/grep', 'bin/sleep', 'bin/true', 'bin/false', 'bin/cpubound', 'bin/syscallheavy', 'bin/forkheavy', 'etc/passwd', 'tmp',
        'bin/ps', 'bin/kill', 'bin/mkdir', 'bin/rm', 'bin/cp', 'bin/mv', 'bin/touch', 'bin/stat', 'bin/env', 'bin/date', 'bin/dd', 'bin/seq', 'bin/tee', 'bin/xargs',
        'bin/uname', 'bin/yes', 'bin/nice', 'bin/pipeserver', 'bin/mallocstress', 'bin/fileio', 'bin/spin', 'bin/kvd', 'proc/tasks', ...(isa === 'x86_64' ? ['bin/fpmix'] : [])]) {
        expect(names).toContain(p);
      }
      const dev = Object.fromEntries(entries.filter((e) => e.name.startsWith('dev/')).map((e) => [e.name, [e.mode & 0o170000, e.rdevMajor, e.rdevMinor]]));
      expect(dev['dev/console']).toEqual([0o020000, 5, 1]);
      expect(dev['dev/null']).toEqual([0o020000, 1, 3]);
      expect(dev['dev/zero']).toEqual([0o020000, 1, 5]);
      const tasks = entries.find((e) => e.name === 'proc/tasks')!;
      expect([tasks.mode & 0o170000, tasks.rdevMajor, tasks.rdevMinor]).toEqual([0o020000, 60, 0]);
      const init = entries.find((e) => e.name === 'sbin/init')!;
      expect(init.data.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
      expect(init.data[4]).toBe(isa === 'x86_64' ? 2 : 1);
      expect(init.data.readUInt16LE(18)).toBe(isa === 'x86_64' ? 62 : 40);
    });
  }
  it('rejects a corrupt archive with the offset', () => {
    expect(() => readCpio(Buffer.from('070701nonsense'))).toThrow(/cpio/);
    expect(() => readCpio(Buffer.from('xxxxxx'.repeat(30)))).toThrow(/bad magic 'xxxxxx' at offset 0/);
  });
});

const cpuboundOutputs: Partial<Record<Isa, string>> = {};

for (const isa of ISAS) {
  const reason = cannotRun(isa);
  describe.skipIf(reason !== null)(`${isa} programs${reason ? ` (skipped: ${reason})` : ''}`, () => {
    let root = '';
    let work = '';
    const bin = (name: string) => join(root, 'bin', name);
    // PATH for programs the guest shell starts. Under qemu-user without
    // binfmt_misc an ARM shell cannot exec ARM programs directly, so its PATH
    // holds host wrapper scripts that start each program under qemu-arm.
    let shellPath = '';
    const run = (name: string, args: string[] = [], input = '', cwd?: string) =>
      runGuest(isa, name === 'init' ? join(root, 'sbin', 'init') : bin(name), args, { input, cwd: cwd ?? work, env: { PATH: shellPath } });
    const sh = (script: string, input = '') => run('sh', ['-c', script], input);

    beforeAll(() => {
      root = extractInitrd(isa);
      work = mkdtempSync(join(tmpdir(), `guest-work-${isa}-`));
      writeFileSync(join(work, 'fruits.txt'), 'pear\napple\nfig\nbanana\napple\n');
      shellPath = join(root, 'bin');
      const qemu = findTool('qemu-arm');
      if (isa === 'arm' && process.arch !== 'arm' && !existsSync('/proc/sys/fs/binfmt_misc/qemu-arm') && qemu) {
        shellPath = join(root, 'wrappers');
        mkdirSync(shellPath);
        for (const name of readdirSync(join(root, 'bin'))) {
          const wrapper = join(shellPath, name);
          writeFileSync(wrapper, `#!/bin/sh\nexec ${qemu} ${join(root, 'bin', name)} "$@"\n`);
          chmodSync(wrapper, 0o755);
        }
      }
    });
    afterAll(() => {
      rmSync(root, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    });

    it('echo prints its arguments, -n without newline', () => {
      expect(run('echo', ['hello', 'guest world']).stdout).toBe('hello guest world\n');
      expect(run('echo', ['-n', 'x']).stdout).toBe('x');
    });
    it('true and false exit 0 and 1', () => {
      expect(run('true').status).toBe(0);
      expect(run('false').status).toBe(1);
    });
    it('cat copies files and stdin, reports a missing file', () => {
      expect(run('cat', ['fruits.txt']).stdout).toBe('pear\napple\nfig\nbanana\napple\n');
      expect(run('cat', [], 'from stdin\n').stdout).toBe('from stdin\n');
      const missing = run('cat', ['nope']);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toBe('cat: nope: No such file or directory\n');
    });
    it('wc counts lines, words and bytes', () => {
      expect(run('wc', [], 'one two\nthree\n').stdout).toBe('      2       3      14\n');
      expect(run('wc', ['-l', 'fruits.txt']).stdout).toBe('      5 fruits.txt\n');
    });
    it('sort sorts, -r reverses, -u drops repeats, -n is numeric', () => {
      expect(run('sort', ['fruits.txt']).stdout).toBe('apple\napple\nbanana\nfig\npear\n');
      expect(run('sort', ['-ru', 'fruits.txt']).stdout).toBe('pear\nfig\nbanana\napple\n');
      expect(run('sort', ['-n'], '10\n9\n100\n-1\n').stdout).toBe('-1\n9\n10\n100\n');
    });
    it('head prints the first lines', () => {
      expect(run('head', ['-n', '2', 'fruits.txt']).stdout).toBe('pear\napple\n');
      expect(run('head', ['-1'], 'a\nb\n').stdout).toBe('a\n');
    });
    it('grep finds fixed strings with the right exit status', () => {
      expect(run('grep', ['an', 'fruits.txt']).stdout).toBe('banana\n');
      expect(run('grep', ['-c', 'apple', 'fruits.txt']).stdout).toBe('2\n');
      expect(run('grep', ['-vn', 'p', 'fruits.txt']).stdout).toBe('3:fig\n4:banana\n');
      expect(run('grep', ['-i', 'FIG', 'fruits.txt']).stdout).toBe('fig\n');
      expect(run('grep', ['kiwi', 'fruits.txt']).status).toBe(1);
      expect(run('grep', ['x', 'missing']).status).toBe(2);
    });
    it('ls lists a directory sorted, -a shows dot files, -l shows sizes', () => {
      const dir = join(work, 'lsdir');
      mkdirSync(dir);
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'b.txt'), '12345');
      writeFileSync(join(dir, 'a.txt'), '');
      writeFileSync(join(dir, '.hidden'), '');
      expect(run('ls', [dir]).stdout).toBe('a.txt\nb.txt\nsub\n');
      expect(run('ls', ['-a', dir]).stdout).toBe('.\n..\n.hidden\na.txt\nb.txt\nsub\n');
      const long = run('ls', ['-l', dir]).stdout.split('\n');
      expect(long[1]).toMatch(/^-rw-r--r--\s+5 b\.txt$/);
      expect(long[2]).toMatch(/^d[rwx-]{9}\s+\d+ sub$/);
      expect(run('ls', ['/no/such/dir']).status).toBe(2);
    });
    it('sleep waits and rejects garbage', () => {
      const t0 = Date.now();
      expect(run('sleep', ['0.2']).status).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
      expect(run('sleep', ['soon']).status).toBe(1);
    });
    it('sh: pipelines', () => {
      expect(sh('cat fruits.txt | sort | head -n 3').stdout).toBe('apple\napple\nbanana\n');
      expect(sh('echo one two three | wc -w').stdout).toBe('      3\n');
    });
    it('sh: redirection < > >> and 2>&1', () => {
      expect(sh('echo first > out.txt; echo second >> out.txt; cat < out.txt').stdout).toBe('first\nsecond\n');
      expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('first\nsecond\n');
      expect(sh('cat missing-file 2>&1 | wc -l').stdout).toBe('      1\n');
      expect(sh('cat < missing-file').status).toBe(1);
    });
    it('sh: exit status, $?, ;, && and ||', () => {
      expect(sh('false; echo $?').stdout).toBe('1\n');
      expect(sh('true && echo yes || echo no').stdout).toBe('yes\n');
      expect(sh('false && echo yes || echo no').stdout).toBe('no\n');
      expect(sh('exit 7').status).toBe(7);
      expect(sh('grep zzz fruits.txt').status).toBe(1);
      expect(sh('no-such-command').status).toBe(127);
    });
    it('sh: quoting, variables and cd', () => {
      expect(sh(`echo 'a  b' "c $HOME_X" \\$x`).stdout).toBe('a  b c  $x\n');
      expect(sh('cd lsdir2 2>/dev/null || mkdir_missing; cd / && pwd').stdout).toBe('/\n');
    });
    it('sh reads a script from standard input', () => {
      expect(run('sh', [], 'echo a\necho b | cat\nexit 3\necho never\n')).toMatchObject({ stdout: 'a\nb\n', status: 3 });
    });
    it('cpubound prints a checksum line', () => {
      const r = run('cpubound', ['3']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^cpubound rounds=3 hash=[0-9a-f]{8} checksum=[0-9a-f]{8} primes=\d+\n$/);
      cpuboundOutputs[isa] = r.stdout;
      expect(r.stdout).toBe('cpubound rounds=3 hash=d66f59a9 checksum=710445ac primes=4946\n');
    });
    it('syscallheavy and forkheavy complete', () => {
      expect(run('syscallheavy', ['200']).stdout).toBe('syscallheavy iterations=200 calls_ok=800\n');
      expect(run('forkheavy', ['10']).stdout).toBe('forkheavy children=10 status_sum=45\n');
    });
    it('the new tools and workloads run natively as in the guest', () => {
      expect(run('seq', ['-s', ',', '3']).stdout).toBe('1,2,3\n');
      expect(run('date', ['-d', '@951782400', '+%F %a %j']).stdout).toBe('2000-02-29 Tue 060\n');
      expect(run('pipeserver', ['2', '5']).stdout).toBe('pipeserver clients=2 requests=10 sum=5160 errors=0\n');
      expect(run('mallocstress', ['200', '16']).stdout).toMatch(/^mallocstress rounds=200 slots=16 bytes=\d+ corrupt=0\n$/);
      expect(run('fileio', ['2', '3000', join(work, 'fio')]).stdout).toBe('fileio files=2 written=6010 read=6000 errors=0\n');
      expect(run('xargs', ['-n', '2', 'echo'], 'a b c\n').stdout).toBe('a b\nc\n');
      // kvd, the key-value server with USDT probes: its probe sites are no-ops when nothing traces it.
      expect(run('kvd', ['-n', '50']).stdout).toBe('kvd requests=50 hits=19 misses=31 keys=16\n');
      expect(run('kvd', [], 'set a 1\nget a\ndel a\nget a\nset b\n').stdout).toBe('OK\n1\nOK\nNOT FOUND\nERROR\n');
      expect(run('kill', ['-s', 'BOGUS', '1']).status).toBe(2);
      if (isa === 'x86_64') expect(run('fpmix', ['1000']).stdout).toMatch(/^fpmix rounds=1000 harmonic=7485470 half=249 x87=\d+\n$/);
    });
    it('a faulting program dies by SIGSEGV', () => {
      const r = run('fault');
      expect(r.stdout).toBe('fault: writing to address 0\n');
      expect(r.signal).toBe('SIGSEGV');
    });
  });
}

describe.skipIf(cannotRun('x86_64') !== null || cannotRun('arm') !== null)('both ISAs', () => {
  it('cpubound gives the same result on x86-64 and ARM', () => {
    expect(cpuboundOutputs.x86_64).toBeDefined();
    expect(cpuboundOutputs.arm).toBe(cpuboundOutputs.x86_64);
  });
});
