// Debian's busybox-static (amd64) on the x86-64 guest: the same script of
// applets runs natively and in the guest (the binary added to the initrd, as
// `wdtrace run` does with a host program), and must print the same.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runMachine } from './machine-support.js';

const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p) && isStaticAmd64(p));

function isStaticAmd64(path: string): boolean {
  const b = readFileSync(path);
  if (b.length < 64 || b.toString('latin1', 0, 4) !== '\x7fELF' || b.readUInt16LE(18) !== 62) return false;
  // No PT_INTERP: statically linked.
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  for (let i = 0; i < b.readUInt16LE(56); i++) if (b.readUInt32LE(phoff + i * phentsize) === 3) return false;
  return true;
}

/** Applet scripts; each prints something that does not depend on the host. */
const SCRIPTS: readonly string[] = [
  'busybox sh -c \'for i in 1 2 3; do echo $i; done | busybox wc -l\'',
  'busybox seq 12 | busybox sort -r | busybox head -n 4 | busybox tail -n 2',
  'busybox seq 5 | busybox awk \'{ s += $1 } END { print s, NR }\'',
  'busybox echo "a:b:c" | busybox cut -d: -f2,3 | busybox tr : -',
  'busybox printf "pear\\napple\\nfig\\n" | busybox sed -e s/p/P/g -e 2d | busybox grep -c P',
  'busybox echo one two three | busybox xargs -n 1 busybox echo arg',
  'busybox env -i A=1 B=2 busybox env',
  'busybox date -u -d @86400 +%Y-%m-%d.%H:%M:%S',
  'busybox sleep 0.2; busybox echo slept',
  'busybox seq 3 7 | busybox wc',
  'd=/tmp/bb.$$; busybox mkdir -p $d/sub; cd $d; busybox echo x > b.txt; busybox echo yy > a.txt; busybox ls -1; busybox find . -name "*.txt" | busybox sort; busybox cat a.txt b.txt; cd /; busybox rm -r $d',
];
const SCRIPT = SCRIPTS.map((s) => `${s}; busybox echo "-- $?"`).join('; ');

describe.skipIf(!BUSYBOX)(`busybox-static amd64 on the x86-64 guest${BUSYBOX ? '' : ' (skipped: busybox-static is not installed)'}`, () => {
  it('the common applets print what they print natively', async () => {
    const native = spawnSync(BUSYBOX!, ['sh', '-c', SCRIPT], { encoding: 'utf8', env: { PATH: `${BUSYBOX!.replace(/\/busybox$/, '')}:/usr/bin:/bin` }, cwd: '/', timeout: 60_000 });
    expect(native.status).toBe(0);
    // The kernel command line cannot carry double quotes: the script goes in a file.
    const guest = await runMachine('x86_64', ['/bin/busybox', 'sh', '/etc/busybox-test.sh'], {
      files: [
        { path: '/bin/busybox', data: new Uint8Array(readFileSync(BUSYBOX!)) },
        { path: '/etc/busybox-test.sh', data: new TextEncoder().encode(`${SCRIPT}\n`) },
      ],
    });
    expect(guest.output).toBe(native.stdout);
    expect(guest.status).toBe(0);
    expect(native.stdout.split('\n').filter((l) => l.startsWith('-- ')).length).toBe(SCRIPTS.length);
  });
});
