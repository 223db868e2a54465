// The playground as a wdtrace command line, both ways: a state is the
// command `wdtrace --arch ISA [--cpus N] OPTIONS -n SOURCE [-c COMMAND]`
// (shown on the page, and what the browser tests run the CLI with), and a
// documentation example's `$ wdtrace ...` line becomes a state (its "run in
// the playground" link). The options field takes the command line's option
// words that make sense without files or a terminal; each is read here into
// flags the worker acts on, in dtrace(1)'s terms. Pure: no DOM, no worker.
import { MAX_CPUS, type Arch, type PlaygroundState } from './state.js';

/** Providers only a booted guest's kernel has. */
const KERNEL_PROVIDERS = /(?:^|[\s,{};/])(?:fbt|sdt|kinst|proc|sched|io|syscall)\s*:/m;

/** Whether wdtrace without --arch boots a guest for this program and command: a command to run, or a kernel provider's probe named. */
export function needsGuest(source: string, command: string): boolean {
  return command.trim() !== '' || KERNEL_PROVIDERS.test(source);
}

/** What the options field asks for. */
export interface TraceFlags {
  readonly quiet: boolean;
  readonly flowindent: boolean;
  readonly destructive: boolean;
  readonly zdefs: boolean;
  readonly verbose: boolean;
  /** -l: list the matching probes instead of tracing. */
  readonly list: boolean;
  /** -e: compile and report, do not trace. */
  readonly exitAfterMatch: boolean;
  /** -d: print the program after the if/else sugar. */
  readonly sugar: boolean;
  readonly bufsize?: string;
  /** -x options in order, as given (name or name=value). */
  readonly x: readonly string[];
  /** --run-for's duration, as given. */
  readonly runFor?: string;
  /** --boot's shell command: what the running system starts at boot (without a command). */
  readonly boot?: string;
}

/** A word of the options field wdtrace takes but the playground cannot honour, or one it does not know. */
export class OptionsError extends Error {}

/** Options without an argument the playground honours. */
const SWITCHES: Record<string, keyof TraceFlags> = { q: 'quiet', F: 'flowindent', w: 'destructive', Z: 'zdefs', v: 'verbose', l: 'list', e: 'exitAfterMatch', d: 'sugar' };

/** Options of wdtrace the playground leaves to the command line, with why. */
const COMMAND_LINE_ONLY: Record<string, string> = {
  s: 'the program is the editor\'s text',
  n: 'the program is the editor\'s text',
  P: 'the program is the editor\'s text',
  m: 'the program is the editor\'s text',
  f: 'the program is the editor\'s text',
  i: 'the program is the editor\'s text',
  o: 'output goes to the page',
  p: 'there is no terminal to give the guest',
  c: 'the command has its own field',
  C: 'there are no files to include',
  D: 'there are no files to include',
  U: 'there are no files to include',
  I: 'there are no files to include',
  H: 'there are no files to include',
  S: 'DIF listings are the command line\'s',
  V: 'the version is the command line\'s',
};

/** Splits shell words as a POSIX shell does for quotes and backslashes; stops at an unquoted |, ;, & or newline-less end. */
export function shellWords(text: string): { words: string[]; rest: string } {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new OptionsError('unterminated quote');
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1]!)) i++;
        s += text[i];
      }
      if (i >= text.length) throw new OptionsError('unterminated quote');
      word = (word ?? '') + s;
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ('|;&<>'.includes(c)) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return { words, rest: text.slice(i) };
}

/** A word as a POSIX shell reads it back: bare when it is safe, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Reads the options field into flags; throws OptionsError naming a word it cannot take. */
export function parseOptions(text: string): TraceFlags {
  const { words, rest } = shellWords(text);
  if (rest.trim() !== '') throw new OptionsError(`'${rest.trim()}': options are words of the command line, without pipes or redirections`);
  const flags: Record<string, unknown> = { quiet: false, flowindent: false, destructive: false, zdefs: false, verbose: false, list: false, exitAfterMatch: false, sugar: false, x: [] };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const value = (inline: string, name: string): string => {
      if (inline !== '') return inline;
      if (i + 1 >= words.length) throw new OptionsError(`option ${name} requires an argument`);
      return words[++i]!;
    };
    if (w.startsWith('--')) {
      const eq = w.indexOf('=');
      const name = eq < 0 ? w : w.slice(0, eq);
      if (name !== '--run-for' && name !== '--boot') throw new OptionsError(`${name}: ${name === '--arch' || name === '--cpus' ? 'set it with its own field' : 'not an option the playground takes'}`);
      flags[name === '--boot' ? 'boot' : 'runFor'] = value(eq < 0 ? '' : w.slice(eq + 1), name);
      continue;
    }
    if (!w.startsWith('-') || w === '-') throw new OptionsError(`'${w}': macro arguments are not taken; options start with -`);
    for (let j = 1; j < w.length; j++) {
      const c = w[j]!;
      if (SWITCHES[c]) {
        flags[SWITCHES[c]] = true;
      } else if (c === 'x' || c === 'b') {
        const v = value(w.slice(j + 1), `-${c}`);
        if (c === 'x') (flags.x as string[]).push(v);
        else flags.bufsize = v;
        break;
      } else if (COMMAND_LINE_ONLY[c]) {
        throw new OptionsError(`-${c}: ${COMMAND_LINE_ONLY[c]}`);
      } else {
        throw new OptionsError(`-${c}: not an option of wdtrace`);
      }
    }
  }
  return flags as unknown as TraceFlags;
}

/** wdtrace's arguments for a state: what the CLI runs to print what the playground prints. */
export function commandArguments(state: PlaygroundState): string[] {
  const args = state.isa === 'none' ? [] : ['--arch', state.isa];
  if (state.cpus !== 1) args.push('--cpus', String(state.cpus));
  args.push(...shellWords(state.options).words, '-n', state.source);
  if (state.command.trim() !== '') args.push('-c', state.command);
  return args;
}

/** The state as one shell command line. */
export function commandLine(state: PlaygroundState): string {
  return ['wdtrace', ...commandArguments(state)].map(shellQuote).join(' ');
}

/**
 * A documentation example's command (the text after "$ ") as a playground
 * state, or undefined when the playground cannot run it (a verb other than
 * `dis --live`, -p, -s files, several programs, a -c program that is a
 * file of the reader's). `dis --live` examples open
 * the live kernel text view of their probes' program; a pipe after the
 * command is left out.
 */
export function exampleState(command: string): PlaygroundState | undefined {
  let parsed;
  try {
    parsed = shellWords(command);
  } catch {
    return undefined;
  }
  const [head, ...args] = parsed.words;
  if (head !== 'wdtrace') return undefined;
  if (args[0] === 'dis') return liveExampleState(args.slice(1));
  if (args[0] === 'run') return undefined;
  let isa: Arch | undefined;
  let cpus = 1;
  let source: string | undefined;
  let guestCommand = '';
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const next = (): string | undefined => args[++i];
    if (w === '--arch' || w === '--cpus' || w === '--run-for' || w === '--boot') {
      const v = next();
      if (v === undefined) return undefined;
      if (w === '--arch') {
        if (v !== 'x86_64' && v !== 'arm') return undefined;
        isa = v;
      } else if (w === '--cpus') cpus = Number(v);
      else options.push(w, v);
      continue;
    }
    if (!w.startsWith('-') || w.startsWith('--')) return undefined;
    // A cluster of single-letter options; the one taking an argument ends it.
    let j = 1;
    const switches: string[] = [];
    for (; j < w.length && SWITCHES[w[j]!]; j++) switches.push(w[j]!);
    if (switches.length > 0) options.push(`-${switches.join('')}`);
    if (j === w.length) continue;
    const letter = w[j]!;
    const value = j + 1 < w.length ? w.slice(j + 1) : next();
    if (value === undefined) return undefined;
    if (letter === 'n' && source === undefined) source = value;
    else if (letter === 'c') {
      // A program named by a relative path with a directory (apps/…/shop, ./hello) is a file of the reader's, not the guest's.
      const program = value.trim().split(/\s+/)[0] ?? '';
      if (program.includes('/') && !program.startsWith('/')) return undefined;
      guestCommand = value;
    }
    else if (letter === 'x' || letter === 'b') options.push(`-${letter}`, value);
    else return undefined;
  }
  if (source === undefined || !Number.isInteger(cpus) || cpus < 1 || cpus > MAX_CPUS) return undefined;
  // Without --arch the example runs as the CLI runs it: on the x86-64 guest when it needs one (or --boot asks for one), else on the idle machine.
  isa ??= needsGuest(source, guestCommand) || options.includes('--boot') ? 'x86_64' : 'none';
  return { source, isa, command: guestCommand, cpus, options: options.map(shellQuote).join(' '), view: 'output', fn: '' };
}

/** `wdtrace dis --live DESC... [--symbol NAME] [--arch ISA]` as the live view of a run of those probe descriptions. */
function liveExampleState(args: string[]): PlaygroundState | undefined {
  const descriptions: string[] = [];
  let isa: Arch = 'x86_64';
  let fn = '';
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = args[++i];
    if (v === undefined) return undefined;
    if (w === '--live') descriptions.push(v);
    else if (w === '--symbol' && fn === '') fn = v;
    else if (w === '--arch' && (v === 'x86_64' || v === 'arm')) isa = v;
    else return undefined;
  }
  if (descriptions.length === 0) return undefined;
  return { source: descriptions.join(',\n'), isa, command: '', cpus: 1, options: '', view: 'live', fn };
}
