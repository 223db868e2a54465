// The playground's figures, in Debian's chromium against the built site
// served locally with gzip: the bytes transferred to open a run=1 link of
// each ISA with a cold cache, up to the end of the run (the page, its
// scripts and fonts, the worker, that ISA's guest images and core), and
// the time from opening the link to the first line of output, then to the
// end of the run. Printed, never asserted: timings on a shared machine are
// figures, not facts to test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { it } from 'vitest';
import { DEFAULT_STATE } from '../playground/state.js';
import { DIST, launchChromium, playgroundUrl, serveSite, RUN_TIMEOUT } from '../test/browser-support.js';

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;

/** What a sent path is, for the breakdown. */
function kind(path: string): string {
  if (/\.(elf|cpio|ko)$/.test(path)) return 'guest images';
  if (/\.wasm$/.test(path)) return 'CPU core';
  if (/worker-/.test(path)) return 'worker';
  if (/\.woff2$/.test(path)) return 'fonts';
  if (/Playground\./.test(path)) return 'editor and page component';
  if (/\/assets\/(guide|providers|index)_?/.test(path) || /\/assets\/index\.md/.test(path)) return 'other pages (prefetched)';
  return 'page (HTML, CSS, framework)';
}

it('measures the playground', async () => {
  const site = await serveSite();
  const lines: string[] = [];
  try {
    for (const isa of ['x86_64', 'arm'] as const) {
      for (let round = 1; round <= 3; round++) {
        site.sent.clear();
        // The offline worker is registered once the run is done; its downloads are the separate figure below.
        const browser = await launchChromium({ serviceWorkers: 'block' });
        try {
          const page = await browser.context.newPage();
          // The moment the output first holds a whole line, and the end of the run, in ms from the navigation's start.
          await page.addInitScript(() => {
            const w = window as unknown as { firstLine?: number; done?: number };
            new MutationObserver(() => {
              const o = document.querySelector('[data-testid="output"]');
              if (!o) return;
              if (w.firstLine === undefined && (o.textContent ?? '').includes('\n')) w.firstLine = performance.now();
              if (w.done === undefined && o.getAttribute('data-state') === 'done') w.done = performance.now();
            }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
          });
          await page.goto(playgroundUrl(site, { ...DEFAULT_STATE, isa }), { timeout: RUN_TIMEOUT });
          await page.waitForFunction(() => (window as unknown as { done?: number }).done !== undefined, undefined, { timeout: RUN_TIMEOUT });
          const t = await page.evaluate(() => {
            const w = window as unknown as { firstLine: number; done: number };
            return { firstLine: w.firstLine, done: w.done };
          });
          const byKind = new Map<string, number>();
          for (const [path, n] of site.sent) byKind.set(kind(path), (byKind.get(kind(path)) ?? 0) + n);
          const total = [...site.sent.values()].reduce((a, b) => a + b, 0);
          lines.push(
            `${isa} run ${round}: first output line ${t.firstLine.toFixed(0)} ms, run done ${t.done.toFixed(0)} ms; transferred ${kb(total)} gzip in ${site.sent.size} files (` +
              [...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${kb(n)}`).join(', ') +
              ')',
          );
        } finally {
          await browser.close();
        }
      }
    }
  } finally {
    await site.close();
  }
  // What the offline worker fetches after that, once: every file the build lists for offline use.
  const manifest = JSON.parse(readFileSync(join(DIST, 'offline-manifest.json'), 'utf8')) as { urls: string[] };
  let offline = 0;
  for (const url of manifest.urls) {
    const file = url.endsWith('/') ? `${url}index.html` : /\.[a-z0-9]+$/.test(url) ? url : `${url}.html`;
    offline += gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;
  }
  lines.push(`offline worker, once the page is idle: ${kb(offline)} gzip in ${manifest.urls.length} files (the whole site, both ISAs)`);
  console.log(`\nplayground (${DEFAULT_STATE.command}, syscall counts), cold cache, Chromium on this machine:\n${lines.join('\n')}\n`);
});
