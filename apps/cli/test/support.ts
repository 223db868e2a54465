// What the CLI tests share: the command run in-process, its output collected.
import { main } from '../src/main.js';

/** Runs `wdtrace ARGS...` in this process; returns its exit status and what it wrote to stdout and stderr. */
export async function wdtrace(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await main(['node', 'wdtrace', ...args], { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { status, stdout, stderr };
}
