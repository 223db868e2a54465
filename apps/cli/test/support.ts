// What the CLI tests share: the command run in-process, its output collected.
import { main } from '../src/main.js';

/**
 * Runs `wdtrace ARGS...` in this process; returns its exit status and the
 * bytes it wrote to stdout and stderr (the CLI writes byte strings: one
 * code unit per byte).
 */
export async function wdtraceBytes(...args: string[]): Promise<{ status: number; stdout: Buffer; stderr: Buffer }> {
  let stdout = '';
  let stderr = '';
  const status = await main(['node', 'wdtrace', ...args], { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { status, stdout: Buffer.from(stdout, 'latin1'), stderr: Buffer.from(stderr, 'latin1') };
}

/** Runs `wdtrace ARGS...` in this process; returns its exit status and its stdout and stderr read as UTF-8 text. */
export async function wdtrace(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const r = await wdtraceBytes(...args);
  return { status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}
