// The playground's Web Worker: runs wdtrace (trace.ts over @wdtrace/session)
// so the page never waits on the machine. It fetches each ISA's guest images
// once (static files of the site), traces one request at a time, posts
// dtrace(1)'s output in batches as it comes, and between steps lets the
// page's messages in — Stop (^C) and requests for the live kernel text.
import { GUEST_IMAGE_URLS } from 'virtual:guest-images';
import type { GuestImages } from '@wdtrace/kernel';
import type { Session } from '@wdtrace/session';
import { aggregationCharts, type KeySymbolizer } from './chart.js';
import { LiveText } from './live-text.js';
import type { FromWorker, OutputChunk, ToWorker } from './protocol.js';
import { trace, type TraceRequest } from './trace.js';
import type { Isa } from './state.js';

interface ImageUrls {
  readonly kernel: string;
  readonly initrd: string;
  readonly modules: Readonly<Record<string, string>>;
}

const scope = self as unknown as { postMessage(m: FromWorker): void; onmessage: ((e: MessageEvent<ToWorker>) => void) | null };
const post = (m: FromWorker): void => scope.postMessage(m);

const images = new Map<Isa, Promise<GuestImages>>();

async function fetchBytes(url: string): Promise<Uint8Array> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** The guest images of `isa`, fetched on first use (a failed fetch is tried again next time). */
function guestImages(isa: Isa): Promise<GuestImages> {
  let p = images.get(isa);
  if (!p) {
    const urls = (GUEST_IMAGE_URLS as Record<Isa, ImageUrls>)[isa];
    p = (async () => {
      const names = Object.keys(urls.modules);
      try {
        const [kernel, initrd, ...mods] = await Promise.all([urls.kernel, urls.initrd, ...names.map((n) => urls.modules[n]!)].map(fetchBytes));
        return { kernel: kernel!, initrd: initrd!, modules: Object.fromEntries(names.map((n, i) => [n, mods[i]!])) };
      } catch (e) {
        throw new Error(`could not load the ${isa} guest (${(e as Error).message})`);
      }
    })();
    p.catch(() => images.delete(isa));
    images.set(isa, p);
  }
  return p;
}

/** Kernel addresses named as dtrace(1) names them in aggregation keys. */
function keySymbolizer(session: Session): KeySymbolizer {
  const symbols = session.machine?.symbols;
  return {
    pointerSize: session.isa === 'arm' ? 4 : 8,
    kernel(address, form) {
      const info = symbols?.lookup(address);
      if (!info) return `0x${address.toString(16)}`;
      if (form === 'mod') return info.module;
      return form === 'func' || info.offset === 0n ? `${info.module}\`${info.symbol.name}` : symbols!.format(address);
    },
  };
}

/** A macrotask turn without timer clamping: the page's messages are handled before it resolves. */
const channel = new MessageChannel();
const turns: (() => void)[] = [];
channel.port1.onmessage = () => turns.shift()?.();
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    turns.push(resolve);
    channel.port2.postMessage(0);
  });

/** How long the machine runs between two looks at the page's messages (ms). */
const SLICE_MS = 25;

interface Run {
  readonly id: number;
  stop: boolean;
  live?: LiveText;
  /** Live-text requests that came before the probes were in the text. */
  readonly pendingLive: string[];
}

let current: Run | undefined;
const finished = new Map<number, LiveText>();
let queue: Promise<void> = Promise.resolve();

async function answerLive(run: number, label: string, live: LiveText | undefined): Promise<void> {
  post({ kind: 'live-rows', run, label, rows: live ? await live.rows(label) : undefined });
}

async function runRequest(id: number, request: TraceRequest): Promise<void> {
  const run: Run = { id, stop: false, pendingLive: [] };
  current = run;
  finished.clear();
  let chunks: OutputChunk[] = [];
  let lastTurn = performance.now();
  const flush = (): void => {
    if (chunks.length === 0) return;
    post({ kind: 'output', run: id, chunks });
    chunks = [];
  };
  let status = 1;
  try {
    const loader = async (isa: Isa): Promise<GuestImages> => {
      post({ kind: 'status', run: id, text: `loading the ${isa} guest` });
      const guest = await guestImages(isa);
      post({ kind: 'status', run: id, text: 'tracing' });
      return guest;
    };
    post({ kind: 'status', run: id, text: 'tracing' });
    status = await trace(request, loader, {
      write: (stream, text) => chunks.push({ stream, text }),
      errorLines: (lines) => post({ kind: 'error-lines', run: id, lines }),
      enabled: (session) => {
        // What came before tracing (the matched-probes notice) shows before the guest runs.
        flush();
        if (!session.machine) return;
        run.live = LiveText.capture(session.machine, session.registry);
        post({ kind: 'live-functions', run: id, functions: run.live.list() });
      },
      aggregations: (aggregations, session) => post({ kind: 'charts', run: id, charts: aggregationCharts(aggregations, keySymbolizer(session)) }),
      pause: async () => {
        if (performance.now() - lastTurn < SLICE_MS) return run.stop;
        flush();
        await nextTurn();
        for (const label of run.pendingLive.splice(0)) await answerLive(id, label, run.live);
        lastTurn = performance.now();
        return run.stop;
      },
    });
  } finally {
    flush();
    if (run.live) finished.set(id, run.live);
    for (const label of run.pendingLive.splice(0)) await answerLive(id, label, run.live);
    current = undefined;
    post({ kind: 'done', run: id, status });
  }
}

scope.onmessage = (e: MessageEvent<ToWorker>): void => {
  const m = e.data;
  switch (m.kind) {
    case 'run':
      if (current) current.stop = true;
      queue = queue.then(() => runRequest(m.run, m.request));
      return;
    case 'stop':
      if (current?.id === m.run) current.stop = true;
      return;
    case 'live':
      if (current?.id === m.run) current.pendingLive.push(m.label);
      else void answerLive(m.run, m.label, finished.get(m.run));
      return;
  }
};
