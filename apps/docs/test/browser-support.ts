// The built site in a real browser, for the playground's tests and figures:
// a static file server over .vitepress/dist (clean URLs as VitePress
// builds them, gzip as a static host sends it, each response's size
// counted), Debian's chromium driven by playwright-core with a fresh
// profile, and the CLI run with both streams on one pipe as a terminal
// shows them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { PlaygroundState } from '../playground/state.js';
import { formatHash } from '../playground/state.js';

export const SITE = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(SITE, '.vitepress/dist');
const CLI = join(SITE, '../cli/bin/wdtrace.js');
export const CHROMIUM = process.env.WDTRACE_CHROMIUM ?? '/usr/bin/chromium';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

export interface SiteServer {
  readonly url: string;
  /** Bytes sent (after compression) per path since the last reset. */
  readonly sent: Map<string, number>;
  close(): Promise<void>;
}

/** Serves `dir` on a free local port as a static host would (gzip for what the browser accepts it for). */
export async function serveSite(dir = DIST): Promise<SiteServer> {
  if (!existsSync(join(dir, 'playground.html'))) throw new Error(`${dir} has no built playground: run \`npm run build -w @wdtrace/docs\` first`);
  const sent = new Map<string, number>();
  const cache = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = normalize(join(dir, path));
    if (!file.startsWith(dir)) file = join(dir, '404.html');
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file) && existsSync(`${file}.html`)) file = `${file}.html`;
    const found = existsSync(file);
    if (!found) file = join(dir, '404.html');
    let body: Buffer = readFileSync(file);
    const headers: Record<string, string> = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      const key = `${file}:gz`;
      body = cache.get(key) ?? gzipSync(body, { level: 9 });
      cache.set(key, body);
      headers['content-encoding'] = 'gzip';
    }
    sent.set(path, (sent.get(path) ?? 0) + body.length);
    res.writeHead(found ? 200 : 404, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    // Closed, it answers nothing more: not even on the connections the browser keeps open.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile, headless, with the flags this machine needs; `serviceWorkers: 'block'` keeps the site's offline worker out (what a first visit costs without it). */
export async function launchChromium(options: { serviceWorkers?: 'allow' | 'block' } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'wdtrace-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    serviceWorkers: options.serviceWorkers ?? 'allow',
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 120_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The playground's URL for a state. */
export function playgroundUrl(site: SiteServer, state: PlaygroundState, run = true): string {
  return `${site.url}/playground${formatHash(state, run)}`;
}

/** How long one run may take in the browser on a loaded machine. */
export const RUN_TIMEOUT = 180_000;

/** The number of the run the page started last (0 before any). */
export async function runNumber(page: Page): Promise<number> {
  return Number((await page.getAttribute('[data-testid="output"]', 'data-run')) ?? 0);
}

/** Waits for a run after `after` to end; returns the output's text. */
export async function finishedOutput(page: Page, after: number): Promise<string> {
  await page.waitForFunction(
    (n) => {
      const o = document.querySelector('[data-testid="output"]');
      return o !== null && Number(o.getAttribute('data-run')) > n && o.getAttribute('data-state') === 'done';
    },
    after,
    { timeout: RUN_TIMEOUT, polling: 100 },
  );
  return (await page.textContent('[data-testid="output"]')) ?? '';
}

/** Opens (or, in a page already showing the playground, follows) a link to `state` with run=1; returns the output. */
export async function runInPage(page: Page, site: SiteServer, state: PlaygroundState): Promise<string> {
  const url = playgroundUrl(site, state);
  const onPlayground = page.url().startsWith(`${site.url}/playground`);
  const before = onPlayground ? await runNumber(page) : 0;
  if (onPlayground) await page.evaluate((hash) => (location.hash = hash), url.slice(url.indexOf('#')));
  else await page.goto(url, { timeout: RUN_TIMEOUT });
  return finishedOutput(page, before);
}

/** What `wdtrace ARGS` prints with standard output and error on one pipe (as UTF-8), and its status. */
export function runCli(args: readonly string[]): Promise<{ output: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'exec "$0" "$@" 2>&1', process.execPath, CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (status) => resolve({ output: Buffer.concat(chunks).toString('utf8'), status }));
  });
}

/** Runs `jobs` at most `width` at a time; each result as a promise in the jobs' order. */
export function pool<T>(jobs: readonly (() => Promise<T>)[], width: number): Promise<T>[] {
  const lanes: Promise<unknown>[] = Array.from({ length: width }, () => Promise.resolve());
  return jobs.map((job, i) => {
    const p = lanes[i % width]!.then(job);
    lanes[i % width] = p.catch(() => undefined);
    return p;
  });
}
