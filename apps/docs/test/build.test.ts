import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const site = fileURLToPath(new URL('..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'wdtrace-docs-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('documentation site', () => {
  it('builds every page', () => {
    const r = spawnSync('npx', ['vitepress', 'build', '.', '--outDir', out], { cwd: site, encoding: 'utf8' });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    for (const page of ['index.html', 'guide/introduction.html', 'guide/getting-started.html', 'guide/architecture.html']) {
      expect(existsSync(join(out, page)), page).toBe(true);
    }
    // Every page the sidebar links to is built.
    const config = readFileSync(join(site, '.vitepress/config.mts'), 'utf8');
    const links = [...config.matchAll(/link: '(\/(?:guide|providers)\/[^']+)'/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(8);
    for (const link of links) expect(existsSync(join(out, `${link.slice(1)}.html`)), link).toBe(true);
    const dis = readFileSync(join(out, 'guide/disassembler.html'), 'utf8');
    expect(dis).toContain('wdtrace dis');
    const intro = readFileSync(join(out, 'guide/introduction.html'), 'utf8');
    expect(intro).toContain('wdtrace is DTrace on emulated machines');
    const arch = readFileSync(join(out, 'guide/architecture.html'), 'utf8');
    expect(arch).toContain('The probe-firing path');
  }, 180_000);
});
