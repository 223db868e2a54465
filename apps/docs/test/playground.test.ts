// The playground in a real browser: the built site served as static files,
// Debian's chromium driven by playwright-core. Every gallery example on
// both ISAs prints what the CLI prints for the same command line, byte for
// byte; Stop ends tracing as ^C does; a syntax error is reported as the
// CLI reports it and marked at its line in the editor; a link reproduces
// its run, as do the provider pages' "run in the playground" links; the
// live kernel text is what `wdtrace dis --live` lists; the charts draw the
// printed aggregations; and a loaded playground runs offline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { blockExamples } from '../.vitepress/playground-links.js';
import { commandArguments } from '../playground/command-line.js';
import { GALLERY, galleryState } from '../playground/gallery.js';
import type { Isa, PlaygroundState } from '../playground/state.js';
import { allExamples, matches } from '../scripts/examples.mjs';
import { DIST, RUN_TIMEOUT, finishedOutput, launchChromium, playgroundUrl, pool, runCli, runInPage, runNumber, serveSite, type Browser, type SiteServer } from './browser-support.js';

const ISAS: readonly Isa[] = ['x86_64', 'arm'];
const cases = GALLERY.flatMap((example) => ISAS.map((isa) => ({ name: `${example.id} on ${isa}`, state: galleryState(example, isa) })));

let site: SiteServer;
let browser: Browser;
let page: Page;
/** The CLI's output of every gallery case, two at a time while the browser runs (started by the first that asks). */
let cliOutputs: Promise<{ output: string; status: number | null }>[] | undefined;
const cliOutput = (i: number) => (cliOutputs ??= pool(cases.map((c) => () => runCli(commandArguments(c.state))), 2))[i]!;

beforeAll(async () => {
  site = await serveSite();
  browser = await launchChromium();
  page = await browser.context.newPage();
}, RUN_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** A state with the playground's defaults for what `fields` leaves out. */
function state(fields: Partial<PlaygroundState> & Pick<PlaygroundState, 'source'>): PlaygroundState {
  return { isa: 'x86_64', command: '', cpus: 1, options: '', view: 'output', fn: '', ...fields };
}

describe('the playground in Chromium', () => {
  it('has more than 20 gallery examples, each with its own name', () => {
    expect(GALLERY.length).toBeGreaterThanOrEqual(20);
    expect(new Set(GALLERY.map((e) => e.id)).size).toBe(GALLERY.length);
    // Every provider of the guest has an example.
    for (const provider of ['dtrace', 'syscall', 'fbt', 'kinst', 'sdt', 'proc', 'sched', 'io', 'profile']) expect(GALLERY.some((e) => e.group === provider), provider).toBe(true);
  });

  it.each(cases.map((c, i) => [c.name, i] as const))('runs the gallery example %s as the CLI does', async (_name, i) => {
    const pending = cliOutput(i);
    const browserOutput = await runInPage(page, site, cases[i]!.state);
    const cli = await pending;
    expect(cli.status).toBe(0);
    expect(browserOutput).toBe(cli.output);
    expect(await page.textContent('[data-testid="status"]')).toBe('exit status 0');
  }, RUN_TIMEOUT);

  it('loads a gallery example in one click and runs it', async () => {
    await page.goto(`${site.url}/playground`);
    await page.selectOption('[data-testid="isa"]', 'arm');
    const before = await runNumber(page);
    await page.click('[data-example="files-opened"]');
    const out = await finishedOutput(page, before);
    const example = GALLERY.find((e) => e.id === 'files-opened')!;
    expect(out).toBe((await runCli(commandArguments(galleryState(example, 'arm')))).output);
    expect(await page.textContent('.cm-content')).toContain('copyinstr(arg1)');
  }, RUN_TIMEOUT);

  it('streams the output as it comes, and stops as ^C does: END fires and the aggregations print', async () => {
    const s = state({
      source: 'BEGIN { ticks = 0; }\ntick-10ms { printf("tick %d\\n", ++ticks); }\nsyscall:::entry /pid == $target/ { @calls[probefunc] = count(); }\nEND { printf("END after %d ticks\\n", ticks); }',
      // A program that keeps making system calls, so the aggregation has rows whenever Stop comes.
      command: '/bin/syscallheavy 100000000',
      options: '-q -x switchrate=100hz',
    });
    await page.goto(playgroundUrl(site, s));
    // Lines come while the guest still runs (its program would run for hours of virtual time).
    await page.waitForFunction(
      () => {
        const o = document.querySelector('[data-testid="output"]');
        return o?.getAttribute('data-state') === 'done' || (o?.getAttribute('data-state') === 'running' && (o.textContent ?? '').includes('tick 3\n'));
      },
      undefined,
      { timeout: RUN_TIMEOUT, polling: 50 },
    );
    expect(await page.getAttribute('[data-testid="output"]', 'data-state'), await page.textContent('[data-testid="output"]') ?? '').toBe('running');
    await page.click('[data-testid="stop"]');
    const out = await finishedOutput(page, 0);
    const m = /^((?:tick \d+\n)+)END after (\d+) ticks\n\n( {2}\w+ +\d+\n)+$/.exec(out);
    expect(m, out).not.toBeNull();
    const ticks = m![1]!.trim().split('\n');
    expect(ticks).toEqual(ticks.map((_, i) => `tick ${i + 1}`));
    expect(ticks.length).toBe(Number(m![2]));
    expect(await page.textContent('[data-testid="status"]')).toBe('exit status 0');
    expect(await page.isDisabled('[data-testid="stop"]')).toBe(true);
  }, RUN_TIMEOUT);

  it('traces a running system without a command as the CLI does: booted, running --boot\'s work on its CPUs until --run-for', async () => {
    const s = state({
      source: 'BEGIN { printf("%d cpus\\n", `nr_cpus_online); }\ntick-100ms { printf("tick\\n"); }\nprofile-97 /execname == "cpubound"/ { @[cpu] = count(); }',
      isa: 'arm',
      cpus: 2,
      options: "-q --boot '/bin/cpubound 100000 & /bin/cpubound 100000 &' --run-for 300ms",
    });
    const out = await runInPage(page, site, s);
    const cli = await runCli(commandArguments(s));
    expect(cli.status).toBe(0);
    expect(out).toBe(cli.output);
    expect(out).toMatch(/^2 cpus\n(tick\n){3}\n {8}[01] +2\d\n {8}[01] +2\d\n$/);
    expect(await page.textContent('[data-testid="status"]')).toBe('exit status 0');
  }, RUN_TIMEOUT);

  it('reports a syntax error as the CLI does and marks its line in the editor', async () => {
    const s = state({ source: 'syscall:::entry\n{\n\t@calls[probefunc] = count(;\n}\n', command: '/bin/echo hi' });
    await page.goto(playgroundUrl(site, s));
    const out = await finishedOutput(page, 0);
    const cli = await runCli(commandArguments(s));
    expect(cli.status).toBe(1);
    expect(out).toBe(cli.output);
    expect(out).toContain('line 3: syntax error');
    expect(await page.textContent('[data-testid="status"]')).toBe('exit status 1');
    const marked = page.locator('.cm-line.cm-d-error');
    expect(await marked.count()).toBe(1);
    expect(await marked.textContent()).toBe('\t@calls[probefunc] = count(;');
    expect(await page.locator('.cm-gutterElement.cm-d-error-gutter').textContent()).toBe('3');
    // Editing the text clears the mark.
    await page.click('.cm-line >> nth=0');
    await page.keyboard.press('End');
    await page.keyboard.type(' ');
    expect(await marked.count()).toBe(0);
  }, RUN_TIMEOUT);

  it('reports a bad command or option as the CLI does', async () => {
    for (const s of [state({ source: 'BEGIN { exit(0); }', command: '/etc/motd' }), state({ source: 'BEGIN { exit(0); }', options: '-x bufpolicy=sometimes' })]) {
      const out = await runInPage(page, site, s);
      const cli = await runCli(commandArguments(s));
      expect(cli.status).not.toBe(0);
      expect(out, s.command + s.options).toBe(cli.output);
      expect(await page.textContent('[data-testid="status"]')).toBe(`exit status ${cli.status}`);
    }
  }, RUN_TIMEOUT);

  it('keeps its state in the link, and the link reproduces the run', async () => {
    await page.goto(`${site.url}/playground`);
    await page.selectOption('[data-testid="isa"]', 'arm');
    await page.fill('[data-testid="command"]', '/bin/cat /etc/hostname /nope');
    await page.fill('[data-testid="options"]', '-q');
    // Replace the program by typing one.
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('syscall::openat:return /pid == $target/ { printf("%d ", errno); }');
    const before = await runNumber(page);
    await page.click('[data-testid="run"]');
    const first = await finishedOutput(page, before);
    const typed = 'syscall::openat:return /pid == $target/ { printf("%d ", errno); }';
    expect(await page.textContent('[data-testid="command-line"]')).toBe(`$ wdtrace --arch arm -q -n '${typed}' -c '/bin/cat /etc/hostname /nope'`);
    expect(first).toBe((await runCli(['--arch', 'arm', '-q', '-n', typed, '-c', '/bin/cat /etc/hostname /nope'])).output);
    expect(first).toContain('0 2 ');
    const link = page.url();
    expect(link).toContain('arch=arm');
    expect(link).toContain(`c=${encodeURIComponent('/bin/cat /etc/hostname /nope')}`);
    const other = await browser.context.newPage();
    try {
      await other.goto(`${link}&run=1`);
      expect(await finishedOutput(other, 0)).toBe(first);
      expect(await other.inputValue('[data-testid="command"]')).toBe('/bin/cat /etc/hostname /nope');
      expect(await other.inputValue('[data-testid="isa"]')).toBe('arm');
    } finally {
      await other.close();
    }
  }, RUN_TIMEOUT);

  it('lists the live kernel text of the run as wdtrace dis --live does', async () => {
    for (const isa of ISAS) {
      const s = galleryState(GALLERY.find((e) => e.id === 'breakpoints')!, isa);
      await runInPage(page, site, s);
      await page.waitForSelector('[data-testid="live-rows"]', { timeout: RUN_TIMEOUT });
      const rows = await page.$$eval('[data-testid="live-rows"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      const cli = await runCli(['dis', '--live', 'fbt::sys_getpid:entry', '--live', 'fbt::sys_getpid:return', '--arch', isa]);
      // dis --live's lines, as they are but for its markers and the probes column.
      const norm = (line: string): string => line.replace(/^[-+ ] /, '').replace(/\s+<- .*$/, '');
      const listed = cli.output.split('\n').filter((l) => /^[-+ ] +[0-9a-f]+:/.test(l));
      const image = listed.filter((l) => !l.startsWith('+')).map(norm);
      const live = listed.filter((l) => l.startsWith('+')).map(norm);
      expect(rows.map((r) => r[0]!), isa).toEqual(image);
      expect(rows.filter((r) => r[1] !== '').flatMap((r) => r[1]!.split('\n')), isa).toEqual(live);
      expect(live).toHaveLength(2);
      expect(rows.filter((r) => r[2] !== '').map((r) => r[2])).toEqual(['fbt:kernel:sys_getpid:entry', 'fbt:kernel:sys_getpid:return']);
    }
  }, RUN_TIMEOUT);

  it('draws a quantize() histogram with the buckets and counts dtrace prints', async () => {
    const s = galleryState(GALLERY.find((e) => e.id === 'write-sizes')!, 'x86_64');
    const out = await runInPage(page, site, s);
    const printed = out.split('\n').filter((l) => /^ +-?\d+ \|/.test(l)).map((l) => l.trim().split(/\s*\|[@ ]*/));
    expect(printed.length).toBeGreaterThan(2);
    const bars = await page.$$eval('[data-testid="charts"] .pg-bar-row', (rows) => rows.map((r) => [r.querySelector('.pg-bar-label')!.textContent, r.querySelector('.pg-bar-value')!.textContent]));
    expect(bars).toEqual(printed.map(([value, count]) => [value, count!.trim()]));
  }, RUN_TIMEOUT);

  it('runs the pages\' examples from their links as the pages show them', async () => {
    const built = (file: string): string => readFileSync(join(DIST, file.replace(/\.md$/, '.html')), 'utf8');
    let ran = 0;
    for (const e of allExamples()) {
      const [linked] = blockExamples('$ ' + e.command);
      // Every example of the provider pages has its link (but those of the Thumb-2 guest, which the playground does not
      // offer, USDT's build steps -h/-G, which write host files, and a command fed a terminal's input through a pipe,
      // which the playground has no terminal for); the guide's, those the playground can run.
      if (e.file.startsWith('providers/') && !/ --thumb\b/.test(e.command) && !/\bwdtrace -[Gh]\b/.test(e.command) && !/\|\s*wdtrace\b/.test(e.command)) expect(linked, `${e.file}:${e.line} has no playground link`).toBeDefined();
      if (!linked) continue;
      // The built page escapes & and ' in attribute values (VitePress writes ' as &#39;).
      const href = playgroundUrl({ ...site, url: '' }, linked.state).replace(/&/g, '&amp;').replace(/'/g, '&#39;');
      expect(built(e.file), `${e.file}:${e.line}`).toContain(`href="${href}"`);
      // Traces whose whole output the page shows (a pipe's output is not the playground's).
      if (linked.state.view !== 'output' || /\|/.test(e.command.replace(/'[^']*'/g, ''))) continue;
      const out = await runInPage(page, site, linked.state);
      const lines = out.replace(/\n+$/, '').split('\n');
      expect(matches(e.expected, lines), `${e.file}:${e.line}\n${out}`).toBe(true);
      ran++;
    }
    expect(ran).toBeGreaterThan(25);
  }, 20 * RUN_TIMEOUT);

  it('keeps the whole site for offline use once opened: offline, a run on an ISA the browser never loaded prints what the CLI prints', async () => {
    const manifest = JSON.parse(readFileSync(join(DIST, 'offline-manifest.json'), 'utf8')) as { urls: string[] };
    // Both ISAs' guest images and release cores are listed.
    for (const kind of [/\/kernel-[^/]+\.elf$/, /\/initrd-[^/]+\.cpio$/, /\/release-[^/]+\.wasm$/]) expect(manifest.urls.filter((u) => kind.test(u)).length, String(kind)).toBeGreaterThanOrEqual(2);
    expect(manifest.urls).toContain('/playground');
    const fresh = await launchChromium();
    try {
      const visit = await fresh.context.newPage();
      // Opened without running anything: the worker registers at once and keeps every listed file as it installs.
      await visit.goto(`${site.url}/playground`);
      await visit.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: RUN_TIMEOUT });
      const kept = await visit.evaluate(async () => (await (await caches.open('wdtrace-site-v1')).keys()).map((r) => new URL(r.url).pathname));
      for (const url of manifest.urls) expect(kept, url).toContain(url);
      await fresh.context.setOffline(true);
      const s = galleryState(GALLERY.find((e) => e.id === 'syscalls-of-command')!, 'x86_64');
      await visit.goto('about:blank');
      await visit.goto(playgroundUrl(site, s), { timeout: RUN_TIMEOUT });
      expect(await finishedOutput(visit, 0)).toBe((await runCli(commandArguments(s))).output);
    } finally {
      await fresh.close();
    }
  }, 3 * RUN_TIMEOUT);

  it('runs offline once loaded: in the open page, and reloaded through its service worker', async () => {
    const s = galleryState(GALLERY.find((e) => e.id === 'syscalls-of-command')!, 'arm');
    const other = { ...s, command: '/bin/ls /bin' };
    const expected = (await runCli(commandArguments(other))).output;
    const online = await runInPage(page, site, s);
    await browser.context.setOffline(true);
    try {
      // The open page has the guest and core of the ISA it ran.
      expect(await runInPage(page, site, other)).toBe(expected);
      expect(online).not.toBe(expected);
    } finally {
      await browser.context.setOffline(false);
    }
    // Loaded again under the service worker (registered on the first visit), the page keeps what it fetches.
    await page.goto(`${site.url}/playground`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: RUN_TIMEOUT });
    await page.reload();
    await runInPage(page, site, s);
    // The server gone, the site still opens and runs (the last test: nothing serves it after this).
    const link = playgroundUrl(site, other);
    await site.close();
    await page.goto('about:blank');
    await page.goto(link, { timeout: RUN_TIMEOUT });
    expect(await finishedOutput(page, 0)).toBe(expected);
  }, 3 * RUN_TIMEOUT);
});
