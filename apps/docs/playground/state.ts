// What the playground holds, and how it lives in the URL hash so a link
// reproduces a trace: `#s=<D source>&arch=x86_64|arm&c=<command>&cpus=N
// &o=<options>&v=output|chart|live&fn=<function>&run=1` (every value
// URI-encoded; run=1 starts the trace when the page opens). Pure data: no
// DOM, no worker.

export type Isa = 'x86_64' | 'arm';
/** wdtrace's --arch: an ISA, or none given (the idle machine, unless the program needs a guest). */
export type Arch = Isa | 'none';
export type View = 'output' | 'chart' | 'live';

export interface PlaygroundState {
  /** The D program, given to wdtrace as -n's text. */
  readonly source: string;
  /**
   * The guest's ISA, or 'none' for wdtrace without --arch: no guest (BEGIN,
   * END, profile and tick probes on the idle machine), unless the program
   * names kernel probes or a command is given — then the x86-64 guest, as
   * the CLI decides.
   */
  readonly isa: Arch;
  /** The guest command traced (-c), '' for none: the guest is then a running system (idle, or running the options' --boot command). */
  readonly command: string;
  readonly cpus: number;
  /** wdtrace's options as typed (-q, -x name=value, ...). */
  readonly options: string;
  /** The view shown beside the editor. */
  readonly view: View;
  /** The function the live kernel text view shows, '' for the first one patched. */
  readonly fn: string;
}

/** CPUs a machine may have (the kernel's MAX_CPUS; the page does not load the kernel package for it). */
export const MAX_CPUS = 8;

export const DEFAULT_STATE: PlaygroundState = {
  source: 'syscall:::entry /pid == $target/ {\n\t@calls[probefunc] = count();\n}\n',
  isa: 'x86_64',
  command: '/bin/ls /etc',
  cpus: 1,
  options: '',
  view: 'output',
  fn: '',
};

const VIEWS: readonly View[] = ['output', 'chart', 'live'];
const ARCHES: readonly Arch[] = ['x86_64', 'arm', 'none'];

/** The state a hash describes (what it leaves out is the default's) and whether it asks to run at once. */
export function parseHash(hash: string): { state: PlaygroundState; run: boolean } {
  const params = new Map<string, string>();
  for (const part of hash.replace(/^#/, '').split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    let value = eq < 0 ? '' : part.slice(eq + 1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // A value that is not valid percent-encoding is taken as it stands.
    }
    params.set(name, value);
  }
  const d = DEFAULT_STATE;
  const cpus = Number(params.get('cpus') ?? d.cpus);
  const view = params.get('v') as View | undefined;
  const state: PlaygroundState = {
    source: params.get('s') ?? d.source,
    isa: ARCHES.find((a) => a === params.get('arch')) ?? d.isa,
    command: params.has('s') ? (params.get('c') ?? '') : (params.get('c') ?? d.command),
    cpus: Number.isInteger(cpus) && cpus >= 1 && cpus <= MAX_CPUS ? cpus : d.cpus,
    options: params.get('o') ?? d.options,
    view: view !== undefined && VIEWS.includes(view) ? view : d.view,
    fn: params.get('fn') ?? d.fn,
  };
  return { state, run: params.get('run') === '1' };
}

/** The hash for a state: values that are the defaults of a linked program are left out; `run` adds run=1. */
export function formatHash(state: PlaygroundState, run = false): string {
  const parts = [`s=${encodeURIComponent(state.source)}`, `arch=${state.isa}`];
  if (state.command !== '') parts.push(`c=${encodeURIComponent(state.command)}`);
  if (state.cpus !== 1) parts.push(`cpus=${state.cpus}`);
  if (state.options.trim() !== '') parts.push(`o=${encodeURIComponent(state.options.trim())}`);
  if (state.view !== 'output') parts.push(`v=${state.view}`);
  if (state.fn !== '') parts.push(`fn=${encodeURIComponent(state.fn)}`);
  if (run) parts.push('run=1');
  return '#' + parts.join('&');
}
