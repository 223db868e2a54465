// Tracing the guest from the command line: which invocations need a booted
// guest, and the session they get — the machine of --arch (or of a host -c
// program), -c's command placed as `wdtrace run` places a program, --cpus,
// and -p's grab of a process of the guest's shell.
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
  /** -p: a process of the guest to grab (the guest boots with its shell on the terminal). */
  grab?: number;
  cpus: number;
  /** Probe texts (-n, -P/-m/-f as descriptions, -s script texts). */
  texts: readonly string[];
  /** The provider named by -P options. */
  providers: readonly string[];
}

/** Whether the invocation traces a guest: --arch or -c given, or a probe of a kernel provider asked for. */
export function wantsGuest(r: GuestRequest): boolean {
  if (r.arch !== undefined || r.thumb || r.command !== undefined || r.grab !== undefined) return true;
  if (r.providers.some((p) => /^(?:fbt|sdt|kinst|proc|sched|io|syscall)$/.test(p))) return true;
  return r.texts.some((t) => KERNEL_PROVIDERS.test(t));
}

export class GuestCliError extends Error {}

/** The session of a guest trace; its events (the guest's console from boot on) go to `onEvent`. */
export async function openGuestSession(r: GuestRequest, onEvent: (e: SessionEvent) => void): Promise<Session> {
  if (r.arch !== undefined && r.arch !== 'x86_64' && r.arch !== 'arm') throw new GuestCliError(`invalid --arch '${r.arch}': expected x86_64 or arm`);
  if (r.thumb && r.arch !== undefined && r.arch !== 'arm') throw new GuestCliError(`--thumb is for the ARM guest, not --arch ${r.arch}`);
  if (r.cpus > 8) throw new GuestCliError(`invalid CPU count '${r.cpus}': the guest machine has 1 to 8 CPUs`);
  const words = r.command !== undefined ? r.command.trim().split(/\s+/).filter((w) => w !== '') : [];
  if (r.command !== undefined && words.length === 0) throw new GuestCliError('-c requires a command');
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
      command: placed.args.length > 0 ? placed.args : undefined,
      files: placed.files,
      // -p: the guest's shell reads the terminal.
      interactive: r.grab !== undefined,
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
