// Helpers for the guest tests: locate the committed images, read the newc
// initrd, and run guest programs on this host (x86-64 natively, ARM under
// qemu-arm) since they are Linux-ABI static executables.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GUEST_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'guest');
export const IMAGES_DIR = join(GUEST_DIR, 'images');
import type { Isa } from '../src/index.js';

export { ISAS, type Isa } from '../src/index.js';

export interface CpioEntry {
  name: string;
  mode: number;
  rdevMajor: number;
  rdevMinor: number;
  data: Buffer;
}

/** Parse a newc ("070701") cpio archive; throws with the offset on bad input. */
export function readCpio(archive: Buffer): CpioEntry[] {
  const entries: CpioEntry[] = [];
  let offset = 0;
  const align4 = (n: number) => (n + 3) & ~3;
  while (offset + 110 <= archive.length) {
    const magic = archive.toString('latin1', offset, offset + 6);
    if (magic !== '070701') throw new Error(`cpio: bad magic '${magic}' at offset ${offset}`);
    const field = (i: number) => parseInt(archive.toString('latin1', offset + 6 + i * 8, offset + 14 + i * 8), 16);
    const mode = field(1);
    const fileSize = field(6);
    const rdevMajor = field(9);
    const rdevMinor = field(10);
    const nameSize = field(11);
    const nameStart = offset + 110;
    const name = archive.toString('latin1', nameStart, nameStart + nameSize - 1);
    const dataStart = align4(nameStart + nameSize);
    if (dataStart + fileSize > archive.length) throw new Error(`cpio: entry '${name}' truncated`);
    if (name === 'TRAILER!!!') return entries;
    entries.push({ name, mode, rdevMajor, rdevMinor, data: archive.subarray(dataStart, dataStart + fileSize) });
    offset = align4(dataStart + fileSize);
  }
  throw new Error('cpio: no trailer');
}

/** Extract the initrd's regular files of one ISA into a fresh temp dir. */
export function extractInitrd(isa: Isa): string {
  const root = mkdtempSync(join(tmpdir(), `guest-${isa}-`));
  for (const e of readCpio(readFileSync(join(IMAGES_DIR, isa, 'initrd.cpio')))) {
    const path = join(root, e.name);
    const type = e.mode & 0o170000;
    if (type === 0o040000) mkdirSync(path, { recursive: true });
    else if (type === 0o100000) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, e.data);
      chmodSync(path, e.mode & 0o7777);
    }
  }
  return root;
}

/** Absolute path of a host tool, or null when it is not installed. */
export function findTool(name: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

export function hasTool(name: string): boolean {
  return findTool(name) !== null;
}

const QEMU_ARM = findTool('qemu-arm');

/** Why programs of this ISA cannot run here, or null if they can. */
export function cannotRun(isa: Isa): string | null {
  if (process.platform !== 'linux') return 'guest programs are Linux executables';
  if (isa === 'x86_64') return process.arch === 'x64' ? null : 'host is not x86-64';
  if (process.arch === 'arm') return null;
  return hasTool('qemu-arm') ? null : 'qemu-arm is not installed';
}

export interface RunResult {
  stdout: string;
  stderr: string;
  status: number | null;
  signal: NodeJS.Signals | null;
}

/** Run a guest executable (host path) with args; ARM ones go through qemu-arm. */
export function runGuest(isa: Isa, exe: string, args: string[], opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): RunResult {
  const useQemu = isa === 'arm' && process.arch !== 'arm';
  const r: SpawnSyncReturns<string> = spawnSync(useQemu ? (QEMU_ARM ?? 'qemu-arm') : exe, useQemu ? [exe, ...args] : args, {
    input: opts.input ?? '',
    cwd: opts.cwd,
    env: opts.env ?? { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.error) throw r.error;
  return { stdout: r.stdout, stderr: r.stderr, status: r.status, signal: r.signal };
}

export function tool(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
