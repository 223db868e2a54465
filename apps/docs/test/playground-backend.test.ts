// The playground runs D as the CLI does, on the WebAssembly backend by
// default: in Debian's chromium (playwright-core), the page's worker is
// watched for the modules the backend instantiates (one per DIFO, importing
// the helper `d.op`, and for a DIFO that loads guest memory the machine's
// walk `d.walk`); a run with the default options makes them, a run with
// -x backend=dif makes none, and both print what the CLI prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Worker } from 'playwright-core';
import { commandArguments } from '../playground/command-line.js';
import type { PlaygroundState } from '../playground/state.js';
import { RUN_TIMEOUT, launchChromium, runCli, runInPage, serveSite, type Browser, type SiteServer } from './browser-support.js';

let site: SiteServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await serveSite();
  browser = await launchChromium({ serviceWorkers: 'block' });
  page = await browser.context.newPage();
}, RUN_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Predicates, arguments, arithmetic, strings, guest loads and aggregations: DIF with inline instructions and call-outs. */
const SOURCE =
  'syscall:::entry /pid == $target && arg2 != 0x123456789abcdef/ { @calls[probefunc] = count(); @bytes[probefunc] = sum(arg2 * 3 + (arg0 >> 1)); } ' +
  'syscall::openat:entry /pid == $target/ { printf("%s %d\\n", copyinstr(arg1), timestamp > 0 ? 1 : 0); } ' +
  'fbt::regs_syscall_arg:entry /pid == $target/ { @loads = sum(*(long *)arg0 + *(unsigned char *)(arg0 + 9)); }';

function state(options: string): PlaygroundState {
  return { isa: 'x86_64', command: '/bin/cat /etc/hostname', cpus: 1, options, view: 'output', fn: '', source: SOURCE };
}

/** The page's worker, watched from now on: each WebAssembly instance made with the DIF backend's imports is counted. */
async function watchWorker(): Promise<Worker> {
  const workers = page.workers();
  expect(workers).toHaveLength(1);
  const worker = workers[0]!;
  await worker.evaluate(() => {
    const g = globalThis as unknown as { difInstances: number; walkingInstances: number };
    g.difInstances = 0;
    g.walkingInstances = 0;
    WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
      construct(target, args: unknown[]) {
        const d = (args[1] as { d?: { op?: unknown; walk?: unknown } } | undefined)?.d;
        if (d?.op !== undefined) g.difInstances++;
        if (d?.walk !== undefined) g.walkingInstances++;
        return Reflect.construct(target, args) as object;
      },
    });
  });
  return worker;
}

const difInstances = (worker: Worker): Promise<number> => worker.evaluate(() => (globalThis as unknown as { difInstances: number }).difInstances);
const walkingInstances = (worker: Worker): Promise<number> => worker.evaluate(() => (globalThis as unknown as { walkingInstances: number }).walkingInstances);

describe('the playground\'s DIF backend', () => {
  it('translates the clauses to WebAssembly by default; -x backend=dif interprets them; both print what the CLI prints', async () => {
    const cli = await runCli(commandArguments(state('-q')));
    expect(cli.status).toBe(0);
    expect(cli.output).toContain('/etc/hostname 1');
    // The first run starts the worker, on the interpreter.
    expect(await runInPage(page, site, state('-q -x backend=dif'))).toBe(cli.output);
    const worker = await watchWorker();
    expect(await runInPage(page, site, state('-q'))).toBe(cli.output);
    const translated = await difInstances(worker);
    expect(translated).toBeGreaterThanOrEqual(4);
    // The loads' DIFO walks guest RAM in the worker's WebAssembly.
    expect(await walkingInstances(worker)).toBeGreaterThanOrEqual(1);
    expect(await runInPage(page, site, state('-q -x backend=dif'))).toBe(cli.output);
    expect(await difInstances(worker)).toBe(translated);
  }, 3 * RUN_TIMEOUT);
});

/** Filters and trampolines the page's worker makes from now on: each filter's instruction counter (d.n), and how many trampolines. */
async function watchProbePrograms(): Promise<{ filterInstructions: () => Promise<number>; trampolines: () => Promise<number> }> {
  const worker = page.workers()[0]!;
  await worker.evaluate(() => {
    const g = globalThis as unknown as { filterCounters: WebAssembly.Global[]; trampolineInstances: number; watchingProbePrograms?: boolean };
    g.filterCounters = [];
    g.trampolineInstances = 0;
    if (g.watchingProbePrograms) return;
    g.watchingProbePrograms = true;
    WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
      construct(target, args: unknown[]) {
        const d = (args[1] as { d?: { a?: unknown; n?: WebAssembly.Global; prepare?: unknown } } | undefined)?.d;
        if (d?.a !== undefined && d.n !== undefined) g.filterCounters.push(d.n);
        if (d?.prepare !== undefined) g.trampolineInstances++;
        return Reflect.construct(target, args) as object;
      },
    });
  });
  return {
    filterInstructions: () => worker.evaluate(() => (globalThis as unknown as { filterCounters: WebAssembly.Global[] }).filterCounters.reduce((n, c) => n + Number(c.value), 0)),
    trampolines: () => worker.evaluate(() => (globalThis as unknown as { trampolineInstances: number }).trampolineInstances),
  };
}

describe('the playground\'s probe filters and trampolines', () => {
  const run = (isa: PlaygroundState['isa'], source: string): PlaygroundState => ({ isa, command: '/bin/syscallheavy 40', cpus: 1, options: '-q', view: 'output', fn: '', source });
  it.each(['x86_64', 'arm'] as const)('%s: whole firings at fast probe sites, and entries found by string keys in trampolines, print what the CLI prints', async (isa) => {
    // Every fbt:::entry ECB is one a probe filter runs whole: the CPU core finishes the firings at the probe sites.
    const filtered = run(isa, 'fbt:::entry { @a[arg1 & 3] = sum(arg2 & 0xff); } fbt:::entry /arg0 == 0x123456789abcdef/ { @never = count(); }');
    // String keys, one calling out: the trampolines find their entries in the shared memory.
    const keyed = run(isa, 'fbt:::entry { @[execname, probefunc] = count(); } syscall:::entry { @s[execname] = sum(arg2); }');
    for (const s of [filtered, keyed]) {
      const cli = await runCli(commandArguments(s));
      expect(cli.status).toBe(0);
      // The first run in the page starts its worker.
      if (page.workers().length === 0) expect(await runInPage(page, site, s)).toBe(cli.output);
      const watch = await watchProbePrograms();
      expect(await runInPage(page, site, s)).toBe(cli.output);
      if (s === filtered) expect(await watch.filterInstructions()).toBeGreaterThan(0);
      else expect(await watch.trampolines()).toBeGreaterThan(0);
    }
  }, 6 * RUN_TIMEOUT);
});
