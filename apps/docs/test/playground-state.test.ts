// The playground's pure parts, without a browser: the state in the URL hash,
// the options field read as wdtrace reads them, the command line a state
// is, the documentation's commands as states, and the D language's tokens.
import { describe, expect, it } from 'vitest';
import { EditorState } from '@codemirror/state';
import { ensureSyntaxTree } from '@codemirror/language';
import { highlightTree, tagHighlighter, tags } from '@lezer/highlight';
import { OptionsError, commandArguments, commandLine, exampleState, parseOptions, shellWords } from '../playground/command-line.js';
import { dLanguage } from '../playground/d-language.js';
import { MAX_CPUS as KERNEL_MAX_CPUS } from '@wdtrace/kernel';
import { DEFAULT_STATE, MAX_CPUS, formatHash, parseHash, type PlaygroundState } from '../playground/state.js';

const program = 'syscall::openat:entry /pid == $target/ {\n\tprintf("%s & 100%% done\\n", copyinstr(arg1));\n}\n';

describe('the playground\'s state', () => {
  it('goes through the URL hash and back', () => {
    const s: PlaygroundState = { source: program, isa: 'arm', command: '/bin/cat /etc/motd', cpus: 2, options: '-q -x bufsize=1m', view: 'live', fn: 'kernel`sys_getpid' };
    const hash = formatHash(s, true);
    expect(hash).toMatch(/^#s=[^&]+&arch=arm&c=%2Fbin%2Fcat%20%2Fetc%2Fmotd&cpus=2&o=-q%20-x%20bufsize%3D1m&v=live&fn=kernel%60sys_getpid&run=1$/);
    expect(parseHash(hash)).toEqual({ state: s, run: true });
    expect(parseHash(formatHash(s))).toEqual({ state: s, run: false });
    expect(parseHash(formatHash({ ...s, isa: 'none' })).state.isa).toBe('none');
  });

  it('takes what a hash leaves out from the defaults, and a link\'s program without a command as having none', () => {
    expect(parseHash('')).toEqual({ state: DEFAULT_STATE, run: false });
    expect(parseHash('#s=BEGIN%20%7B%20exit(0)%3B%20%7D&arch=mips&cpus=zero&v=nowhere')).toEqual({
      state: { ...DEFAULT_STATE, source: 'BEGIN { exit(0); }', command: '', isa: 'x86_64' },
      run: false,
    });
    // A value that is not valid percent-encoding is kept as it stands.
    expect(parseHash('#s=100%').state.source).toBe('100%');
    // CPUs: the machine's 1 to 8, as the CLI takes them.
    expect(MAX_CPUS).toBe(KERNEL_MAX_CPUS);
    expect(parseHash('#cpus=8').state.cpus).toBe(8);
    expect(parseHash('#cpus=64').state.cpus).toBe(DEFAULT_STATE.cpus);
  });
});

describe('the options field', () => {
  it('reads wdtrace\'s options as the command line does', () => {
    expect(parseOptions('-qF -x bufsize=1m -xswitchrate=10hz -b 4k --run-for 5s -Zwv')).toEqual({
      quiet: true, flowindent: true, destructive: true, zdefs: true, verbose: true, list: false, exitAfterMatch: false, sugar: false,
      x: ['bufsize=1m', 'switchrate=10hz'], bufsize: '4k', runFor: '5s',
    });
    expect(parseOptions("--boot '/bin/cpubound 100 &' -q").boot).toBe('/bin/cpubound 100 &');
    expect(parseOptions('-lv')).toMatchObject({ list: true, verbose: true });
    expect(parseOptions('--run-for=2s').runFor).toBe('2s');
  });

  it('says which words it cannot take, and why', () => {
    const message = (text: string): string => {
      try {
        parseOptions(text);
        return '';
      } catch (e) {
        expect(e).toBeInstanceOf(OptionsError);
        return (e as Error).message;
      }
    };
    expect(message('-o out.txt')).toBe('-o: output goes to the page');
    expect(message('-s prog.d')).toBe('-s: the program is the editor\'s text');
    expect(message('-k')).toBe('-k: not an option of wdtrace');
    expect(message('-x')).toBe('option -x requires an argument');
    expect(message('--arch arm')).toBe('--arch: set it with its own field');
    expect(message('--json')).toBe('--json: not an option the playground takes');
    expect(message('hello')).toBe('\'hello\': macro arguments are not taken; options start with -');
    expect(message('-q | less')).toBe('\'| less\': options are words of the command line, without pipes or redirections');
    expect(message("-x 'bufsize=1m")).toBe('unterminated quote');
  });
});

describe('the command line of a state', () => {
  it('is wdtrace with the ISA, the CPUs, the options, the program and the command', () => {
    const s: PlaygroundState = { ...DEFAULT_STATE, source: program, isa: 'arm', cpus: 2, options: '-q -x "bufsize=1m"', command: '/bin/cat /etc/motd' };
    expect(commandArguments(s)).toEqual(['--arch', 'arm', '--cpus', '2', '-q', '-x', 'bufsize=1m', '-n', program, '-c', '/bin/cat /etc/motd']);
    expect(commandLine({ ...s, source: "BEGIN { printf(\"it's\\n\"); }" })).toBe(`wdtrace --arch arm --cpus 2 -q -x bufsize=1m -n 'BEGIN { printf("it'\\''s\\n"); }' -c '/bin/cat /etc/motd'`);
    expect(shellWords(commandLine(s).slice('wdtrace '.length)).words).toEqual(commandArguments(s));
  });

  it('comes from a documentation example\'s command', () => {
    expect(exampleState(`wdtrace --arch arm -qn 'syscall:::entry { @[probefunc] = count(); }' -c '/bin/ls /etc' | head`)).toEqual({
      ...DEFAULT_STATE, source: 'syscall:::entry { @[probefunc] = count(); }', isa: 'arm', command: '/bin/ls /etc', options: '-q',
    });
    expect(exampleState(`wdtrace --cpus 2 --run-for 5s -x aggrate=300ms -lv -n 'fbt::vfs_read:'`)).toEqual({
      ...DEFAULT_STATE, source: 'fbt::vfs_read:', command: '', cpus: 2, options: '--run-for 5s -x aggrate=300ms -lv',
    });
    expect(exampleState(`wdtrace dis --live 'kinst::sys_getpid:' --live 'fbt::sys_getpid:entry' --arch arm --symbol sys_getpid`)).toEqual({
      ...DEFAULT_STATE, source: 'kinst::sys_getpid:,\nfbt::sys_getpid:entry', command: '', isa: 'arm', view: 'live', fn: 'sys_getpid',
    });
    // Without --arch: the idle machine when the program needs no guest (as the CLI decides).
    expect(exampleState(`wdtrace -q --run-for 5s -n 'tick-1s { exit(0); }'`)).toEqual({ ...DEFAULT_STATE, source: 'tick-1s { exit(0); }', isa: 'none', command: '', options: '-q --run-for 5s' });
    expect(exampleState(`wdtrace -n 'BEGIN { exit(0); }' -c /bin/true`)?.isa).toBe('x86_64');
    expect(exampleState(`wdtrace -n 'BEGIN { exit(0); }' -c 'ls /etc'`)?.command).toBe('ls /etc');
    // --boot: a running system's work, which needs the guest.
    expect(exampleState(`wdtrace --boot '/bin/cpubound 500 &' --run-for 50ms -q -n 'profile-997 { @[execname] = count(); }'`)).toEqual({
      ...DEFAULT_STATE, source: 'profile-997 { @[execname] = count(); }', isa: 'x86_64', command: '', options: "--boot '/bin/cpubound 500 &' --run-for 50ms -q",
    });
    expect(commandArguments({ ...DEFAULT_STATE, isa: 'none', source: 'BEGIN', command: '' })).toEqual(['-n', 'BEGIN']);
    // What the playground cannot run: other verbs, a terminal, files, a pipe into wdtrace.
    for (const c of ['wdtrace run -- /bin/echo hi', 'wdtrace dis kernel.elf', `wdtrace -p 2 -n 'BEGIN'`, 'wdtrace -s prog.d', `printf 'x' | wdtrace -n BEGIN`, 'wdtrace -q', `wdtrace --arch mips -n BEGIN`, `wdtrace -n 'shop$target:::' -c apps/cli/test/fixtures/usdt/shop-x86_64`, `wdtrace -n BEGIN -c './hello 1'`]) {
      expect(exampleState(c), c).toBeUndefined();
    }
  });
});

describe('the editor\'s D language', () => {
  it('tells apart descriptions, predicates, built-ins, macros, actions, strings and comments', () => {
    const text = `#pragma D option quiet\n/* count */\n${program}tick-1s, END { @n = count(); self->x = this->y + 0x10; }\n`;
    const state = EditorState.create({ doc: text, extensions: dLanguage });
    const tree = ensureSyntaxTree(state, state.doc.length, 5000)!;
    const names = tagHighlighter([
      { tag: tags.labelName, class: 'probe' },
      { tag: tags.meta, class: 'meta' },
      { tag: tags.comment, class: 'comment' },
      { tag: tags.string, class: 'string' },
      { tag: tags.number, class: 'number' },
      { tag: tags.special(tags.variableName), class: 'special' },
      { tag: tags.standard(tags.variableName), class: 'builtin' },
      { tag: tags.local(tags.variableName), class: 'local' },
      { tag: tags.function(tags.variableName), class: 'function' },
    ]);
    const found: string[] = [];
    highlightTree(tree, names, (from, to, cls) => found.push(`${cls}:${text.slice(from, to)}`));
    expect(found).toEqual([
      'meta:#pragma D option quiet',
      'comment:/* count */',
      'probe:syscall::openat:entry',
      'meta:/',
      'builtin:pid',
      'special:$target',
      'meta:/',
      'function:printf',
      'string:"%s & 100%% done\\n"',
      'function:copyinstr',
      'builtin:arg1',
      'probe:tick-1s',
      'probe:END',
      'special:@n',
      'function:count',
      'local:self->x',
      'local:this->y',
      'number:0x10',
    ]);
  });
});
