// Where a trace's output goes, as dtrace(1) sends it: trace output to stdout
// or the -o file (appended to), moved by freopen() and emptied by
// ftruncate(); the guest's console to stdout under -c (the command shares
// the terminal) and to stderr on a running system (its programs' output is
// no trace output); messages to stderr; with --json
// one JSON object per firing instead of the trace text. It takes the
// session's events and does the file and process I/O they ask for.
import { spawnSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { LoadError, type ConsumerOutput } from '@wdtrace/dtrace-core';
import { byteStringText, utf8ByteString } from '@wdtrace/dtrace-core/dif';
import type { SessionEvent } from '@wdtrace/session';

/** Where the CLI writes: byte strings (one code unit per byte), written out byte for byte. */
export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  /** Standard input, which a -c command reads (without it the command's input is empty). */
  input?: NodeJS.ReadableStream;
}

/** A byte-string path as the bytes the file system names it by. */
export function fsPath(path: string): Buffer {
  return Buffer.from(path, 'latin1');
}

/** strerror(3)'s text for a failed file operation. */
export function strerror(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const text: Record<string, string> = {
    ENOENT: 'No such file or directory',
    EACCES: 'Permission denied',
    EISDIR: 'Is a directory',
    ENOTDIR: 'Not a directory',
    EROFS: 'Read-only file system',
    ENOSPC: 'No space left on device',
    EEXIST: 'File exists',
    EPERM: 'Operation not permitted',
    EPIPE: 'Broken pipe',
    EISCONN: 'Transport endpoint is already connected',
    EIO: 'Input/output error',
    EFBIG: 'File too large',
    EDQUOT: 'Disk quota exceeded',
  };
  return (code !== undefined ? text[code] : undefined) ?? (e instanceof Error ? e.message : String(e));
}

/** Appends trace output to a file; a failed write ends tracing as dtrace(1)'s oprintf does ("failed to write to FILE: ..."). */
function appendTo(file: string, s: string): void {
  try {
    appendFileSync(fsPath(file), Buffer.from(s, 'latin1'));
  } catch (e) {
    throw new LoadError(`failed to write to ${file}: ${strerror(e)}`);
  }
}

export class TraceOutput {
  private base: (s: string) => void;
  /** freopen()'s file, while output goes there. */
  private redirect: string | undefined;
  /** Where the guest's console goes: stdout (the -c command's terminal) or stderr (a running system). */
  consoleTo: 'out' | 'err' = 'out';

  constructor(
    private readonly io: CliIo,
    /** --json: firings as JSON objects, no trace text. */
    private readonly json: boolean,
    /** -o: the file trace output is appended to. */
    private readonly file: string | undefined,
  ) {
    this.base = io.out;
  }

  /** Opens the -o file (created, appended to) as dtrace(1) does before the programs are enabled. */
  open(): void {
    const file = this.file;
    if (file === undefined) return;
    try {
      writeFileSync(fsPath(file), '', { flag: 'a' });
    } catch (e) {
      throw new LoadError(`failed to open output file '${file}': ${strerror(e)}`);
    }
    this.base = (s) => appendTo(file, s);
  }

  /** Trace output: to freopen()'s file, the -o file or stdout. */
  readonly write = (s: string): void => (this.redirect !== undefined ? appendTo(this.redirect, s) : this.base(s));

  /** --json is text: the output's bytes read as UTF-8, the JSON written as UTF-8. */
  private writeJson(v: unknown): void {
    this.write(utf8ByteString(JSON.stringify(v)) + '\n');
  }

  /** The host's side of system(), ftruncate() and freopen(). */
  readonly actions: Pick<ConsumerOutput, 'system' | 'freopen' | 'ftruncate'> = {
    // system(): the command's output joins the trace output in order.
    system: (command) => {
      const r = spawnSync('/bin/sh', ['-c', byteStringText(command)], { encoding: 'latin1', stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.stdout) this.write(r.stdout);
      if (r.stderr) this.io.err(r.stderr);
    },
    // ftruncate(): empties the file output goes to (a redirect or -o); stdout is left alone, as ftruncate(2) fails on it.
    ftruncate: () => {
      const file = this.redirect ?? this.file;
      if (file !== undefined) writeFileSync(fsPath(file), '');
    },
    freopen: (path) => {
      if (path === '') this.redirect = undefined;
      else {
        try {
          writeFileSync(fsPath(path), '', { flag: 'a' });
          this.redirect = path;
        } catch (e) {
          return strerror(e);
        }
      }
      return undefined;
    },
  };

  /** A session event, written where dtrace(1) writes it. */
  readonly event = (e: SessionEvent): void => {
    switch (e.kind) {
      case 'console':
        this.io[this.consoleTo](e.text);
        return;
      case 'output':
        if (!this.json) this.write(e.text);
        return;
      case 'record':
        if (this.json) this.writeJson({ ...e.record, output: byteStringText(e.record.output) });
        return;
      case 'aggregations':
        if (!this.json) this.write(e.text);
        else if (e.printout !== '') this.writeJson({ aggregations: byteStringText(e.printout) });
        return;
      default:
        this.io.err(e.text);
    }
  };
}
