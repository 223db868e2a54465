import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));
const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;

function wdtrace(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

describe('wdtrace executable', () => {
  it('prints its version', () => {
    const r = wdtrace('--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`wdtrace ${version}\n`);
  });

  it('prints help listing only the options that work', () => {
    const r = wdtrace('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: wdtrace \[options\]/);
    const options = [...r.stdout.matchAll(/^\s+(-\S+|--\S+)/gm)].map((m) => m[1]);
    expect(options).toEqual(['--version', '-n', '-P', '-m', '-f', '-i', '-s', '-l', '-v', '-q', '-F', '-w', '-Z', '-e', '-b', '-o', '-x', '-V', '-h', '-G', '-S', '-d', '-C', '-D', '-U', '-I', '-H', '-L', '--json', '--run-for', '-c', '-p', '--boot', '--arch', '--thumb', '--cpus', '--ns-per-insn', '--help']);
  });

  it('rejects an unknown option with a non-zero exit and a message', () => {
    const r = wdtrace('--no-such-option');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown option '--no-such-option'");
    expect(r.stdout).toBe('');
  });
});
