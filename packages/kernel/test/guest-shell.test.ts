// The guest shell against the host's POSIX shell: the same scripts run under
// the guest's /bin/sh (natively on x86-64, under qemu-arm for ARM) and under
// dash (or the host's /bin/sh), and must print the same and exit the same.
// Only what the guest shell's subset covers is compared; the features that
// are not POSIX (here-strings) and the guest's own messages are checked
// directly.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISAS, cannotRun, extractInitrd, findTool, runGuest } from './guest-support.js';

const hostShell = findTool('dash') ?? (existsSync('/bin/sh') ? '/bin/sh' : null);

/** Scripts whose stdout and exit status must match the host shell's. */
const SCRIPTS: Record<string, string> = {
  'unset variables expand to nothing': 'echo "[$x]" $x; echo ${x}end',
  'assignment and quoting': 'x=5; y="a  b"; z=\'$x\'; echo $x "$y" $y $z "${x}0"',
  'arithmetic': 'echo $((1+2*3)) $((7/2)) $((7%3)) $(( (1+2)*3 )) $((1<<4)) $((5>3 && 2>1)) $((-7/2)) $((3>2 ? 10 : 20)); i=4; echo $((i*i)) $((i+=2)) $i',
  'if/elif/else': 'for n in 1 2 3; do if [ $n -eq 1 ]; then echo one; elif [ $n = 2 ]; then echo two; else echo many; fi; done',
  'while, until, break, continue': 'i=0; while [ $i -lt 10 ]; do i=$((i+1)); [ $i = 3 ] && continue; [ $i -gt 5 ] && break; echo $i; done; until [ $i -le 0 ]; do i=$((i-2)); done; echo $i',
  'nested loops, continue 2': 'for i in 1 2; do for j in a b c; do [ $j = b ] && continue 2; echo $i$j; done; done',
  'for over words and a pipe into wc': 'for i in 1 2 3; do echo $i; done | wc -l',
  'case with patterns': 'for w in apple b7 Zed ""; do case "$w" in a*) echo A;; [0-9]*|b[0-9]) echo digit;; [A-Z]*) echo upper;; "") echo empty;; *) echo other;; esac; done',
  'functions, arguments, return': 'f() { echo "$# [$1] [$2]"; return 3; }; f a "b c"; echo $?; g() { for a in "$@"; do echo "<$a>"; done; }; g x "y z"; g',
  'parameter expansion forms': 'x=hello.tar.gz; echo ${x%.gz} ${x%%.*} ${x#*.} ${x##*.} ${#x}; echo ${u:-def} ${u-d2}; echo ${v:=set} $v; echo ${v:+alt} ${w:+alt}',
  'command substitution': 'echo $(echo hi; echo there) "$(echo a   b)" `echo back`; x=$(false); echo $?',
  'field splitting and IFS': 'x="a b  c"; for w in $x; do echo "<$w>"; done; IFS=:; y=1:2::3; for w in $y; do echo "[$w]"; done',
  'positional parameters': 'set -- 1 "2 3" 4; echo $#; for a in "$@"; do echo "<$a>"; done; shift; echo $1 "$*"',
  'globbing': 'cd globdir && echo *.txt; echo a?.txt; echo [ab]*; echo sub/*.c; echo "*.txt" \\*.txt; echo *.none',
  'test and [': '[ -d globdir ] && echo dir; [ -f nope ] || echo nofile; test "" = "" && echo eq; [ ! -z x ] && echo nz; [ 3 -lt 10 -a abc != abd ] && echo and; [ \\( 1 = 2 \\) -o 1 = 1 ] && echo or',
  'here-documents': 'cat <<EOF\nhome is $x|$((2+2))\n  indented\nEOF\ncat <<\'RAW\'\n$x stays\nRAW\nwhile read a b; do echo "$b-$a"; done <<EOF\none two three\nfour five\nEOF',
  'redirections and groups': '{ echo a; echo b; } > g.txt; cat g.txt | wc -l; echo c >> g.txt; cat < g.txt; (echo sub; exit 4); echo $?; exec 3>f3.txt; echo to3 >&3; exec 3>&-; cat f3.txt',
  'subshells keep variables apart': 'x=1; (x=2; echo in $x); echo out $x; v=outer; f() { v=inner; }; f; echo $v',
  'set -e stops at a failing command': 'set -e; if false; then :; fi; false || echo ok; ! true; echo still; false; echo never',
  'exit status and !': 'false | true; echo $?; ! true; echo $?; true && false || echo fell; exit 7',
  'background jobs and wait': 'sleep 0.1 & p=$!; wait $p; echo waited $?; sleep 0.1 & sleep 0.1 & wait; echo all',
  'kill and wait report the signal': 'sleep 5 & kill $!; wait $!; echo $?',
  'traps': 'trap "echo bye" EXIT; trap "echo usr1" USR1; kill -USR1 $$; trap "" INT; kill -INT $$; echo after',
  'eval and printf': 'eval "echo evaled \\$((2+2))"; printf "%s-%d|%5s|%-3d|\\n" a 1 ab 7; printf "%s\\n" x y z',
  'read splits fields': 'printf "a b c\\n" > r.txt; read x y < r.txt; echo "$x|$y"',
  'command not found is 127': 'nosuchcmd; echo $?',
  'syntax error': 'echo before; if then',
  'unterminated if': 'if true; then echo x',
  'arithmetic error': 'echo $((1 + ))',
  'set -u': 'set -u; echo $nope; echo after',
  'a script from a file': 'printf \'echo $1 $#\\nfor i in 1 2; do\\necho $i\\ndone\\nexit 5\\necho never\\n\' > s.sh; sh s.sh p q; echo $?',
};

for (const isa of ISAS) {
  const reason = cannotRun(isa) ?? (hostShell ? null : 'no host POSIX shell (dash or /bin/sh)');
  describe.skipIf(reason !== null)(`${isa} shell against ${hostShell ?? 'the host shell'}${reason ? ` (skipped: ${reason})` : ''}`, () => {
    let root = '';
    let work = '';
    let shellPath = '';

    beforeAll(() => {
      root = extractInitrd(isa);
      work = mkdtempSync(join(tmpdir(), `guest-shell-${isa}-`));
      mkdirSync(join(work, 'globdir', 'sub'), { recursive: true });
      for (const f of ['a1.txt', 'a2.txt', 'b.log', 'sub/x.c']) writeFileSync(join(work, 'globdir', f), '');
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

    const guest = (script: string) => runGuest(isa, join(root, 'bin', 'sh'), ['-c', script], { cwd: work, env: { PATH: shellPath } });
    const host = (script: string) => {
      const r = spawnSync(hostShell!, ['-c', script], { cwd: work, env: { PATH: shellPath }, encoding: 'utf8', timeout: 30_000 });
      return { stdout: r.stdout, status: r.status };
    };

    // qemu-arm's rt_sigreturn rejects the return from a handler (the guest
    // kernel runs the same program fine: machine-programs checks traps on ARM).
    const underQemu = isa === 'arm' && process.arch !== 'arm';
    for (const [name, script] of Object.entries(SCRIPTS)) {
      it.skipIf(underQemu && name === 'traps')(`${name}${underQemu && name === 'traps' ? ' (skipped under qemu-arm: its sigreturn)' : ''}`, () => {
        const g = guest(script);
        const h = host(script);
        expect({ stdout: g.stdout, status: g.status }).toEqual(h);
      });
    }

    it('errors are messages with a status, never a crash', () => {
      for (const script of ['if', 'for', 'echo $((', 'echo ${x', 'case x in', 'f() {', ')', 'echo "open', 'cat < /no/such/file', 'x=$((1/0))', '${x:?}']) {
        const r = guest(script);
        expect(r.signal, script).toBeNull();
        expect(r.status, script).toBeGreaterThan(0);
        expect(r.stderr, script).toMatch(/^sh: /);
      }
      expect(guest('echo $x').stdout).toBe('\n');
    });
    it('here-strings of plain text and jobs', () => {
      expect(guest('cat <<< "two words $((1+1))"; read a b <<< "x y z"; echo "$b"').stdout).toBe('two words 2\ny z\n');
      expect(guest('sleep 1 & jobs; kill %1; wait %1; echo $?').stdout).toMatch(/^\[1\]\+ Running\s+sleep 1\n143\n$/);
    });
    it('--help describes the shell', () => {
      expect(runGuest(isa, join(root, 'bin', 'sh'), ['--help']).stdout).toMatch(/^usage: sh /);
    });
  });
}
