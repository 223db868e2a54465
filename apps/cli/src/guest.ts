// Tracing the guest from the command line: which invocations need a booted
// guest, and the session they get — the machine of --arch (or of a host -c
// program), -c's command placed as `wdtrace run` places a program (the
// terminal's standard input its console input), --cpus, and otherwise a
// running system: the guest booted and staying up, idle or running --boot's
// command, where -p grabs any process.
import { LoadError } from '@wdtrace/dtrace-core';
import type { Isa } from '@wdtrace/kernel';
import { Session, guestExecProblem, type SessionEvent } from '@wdtrace/session';
import { placeProgram } from './run.js';

/** Providers that exist only in a booted guest's kernel. */
const KERNEL_PROVIDERS = /(?:^|[\s,{};/])(?:fbt|sdt|kinst|proc|sched|io|syscall)\s*:/m;

export interface GuestRequest {
  arch?: string;
  /** --thumb: the ARM guest built as Thumb-2 code. */
  thumb?: boolean;
  command?: string;
  /** -p: a process of the running guest to grab. */
  grab?: number;
  /** --boot: a shell command the running system starts at boot (background work to trace). */
  boot?: string;
  /** Whether there is a standard input for a -c command to read (it is then fed to the guest's console). */
  input?: boolean;
  cpus: number;
  /** Virtual nanoseconds per executed instruction. */
  nsPerInsn?: number;
  /** Probe texts (-n, -P/-m/-f as descriptions, -s script texts). */
  texts: readonly string[];
  /** The provider named by -P options. */
  providers: readonly string[];
}

/** Whether the invocation traces a guest: --arch or -c given, or a probe of a kernel provider asked for. */
export function wantsGuest(r: GuestRequest): boolean {
  if (r.arch !== undefined || r.thumb || r.command !== undefined || r.grab !== undefined || r.boot !== undefined) return true;
  if (r.providers.some((p) => /^(?:fbt|sdt|kinst|proc|sched|io|syscall)$/.test(p))) return true;
  return r.texts.some((t) => KERNEL_PROVIDERS.test(t));
}

export class GuestCliError extends Error {}

/** The session of a guest trace; its events (the guest's console from boot on) go to `onEvent`. */
export async function openGuestSession(r: GuestRequest, onEvent: (e: SessionEvent) => void): Promise<Session> {
  if (r.arch !== undefined && r.arch !== 'x86_64' && r.arch !== 'arm') throw new GuestCliError(`invalid --arch '${r.arch}': expected x86_64 or arm`);
  if (r.thumb && r.arch !== undefined && r.arch !== 'arm') throw new GuestCliError(`--thumb is for the ARM guest, not --arch ${r.arch}`);
  const words = r.command !== undefined ? r.command.trim().split(/\s+/).filter((w) => w !== '') : [];
  if (r.command !== undefined && words.length === 0) throw new GuestCliError('-c requires a command');
  if (r.command !== undefined && r.boot !== undefined) throw new GuestCliError('--boot starts a running system; it cannot be combined with -c');
  if (r.command !== undefined && r.grab !== undefined) throw new GuestCliError('-c and -p cannot be combined: the guest runs the command or is a running system');
  let placed;
  try {
    placed = placeProgram(words, r.thumb ? 'arm' : (r.arch as Isa | undefined));
  } catch (e) {
    throw new GuestCliError(`failed to execute ${words[0] ?? ''}: ${(e as Error).message.replace(/^[^:]*: /, '')}`);
  }
  // A file of the guest that is no program for it is refused before the guest boots, as dtrace(1) refuses a bad -c command.
  const problem = words.length > 0 ? guestExecProblem(placed.isa, placed.args[0]!) : undefined;
  if (problem !== undefined) throw new LoadError(`failed to execute ${words[0]}: ${problem}`);
  const session = await Session.create({
    guest: {
      isa: placed.isa,
      thumb: r.thumb,
      cpus: r.cpus,
      nsPerInsn: r.nsPerInsn,
      command: placed.args.length > 0 ? placed.args : undefined,
      running: placed.args.length > 0 ? undefined : { boot: r.boot },
      files: placed.files,
      // -c: the command reads the terminal's standard input.
      interactive: placed.args.length > 0 && (r.input ?? false),
    },
    onEvent,
  });
  if (r.grab !== undefined && !session.grab(r.grab)) throw new LoadError(`failed to grab pid ${r.grab}: No such process`);
  return session;
}

/**
 * Feeds the terminal to an interactive guest's console while it is traced;
 * returns what lets the terminal go again.
 */
export function attachTerminal(session: Session, input: NodeJS.ReadableStream): () => void {
  const onData = (chunk: Buffer): void => session.input(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  const onEnd = (): void => session.closeInput();
  input.on('data', onData);
  input.on('end', onEnd);
  input.on('error', onEnd);
  return () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('error', onEnd);
    input.pause();
    (input as { unref?: () => void }).unref?.();
  };
}
