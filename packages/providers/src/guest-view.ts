// The framework's view of a booted guest (dtrace-core's MachineInterface over
// a @wdtrace/kernel Machine): CPUs and virtual time, NOFAULT loads of kernel
// and user memory, the thread running on a CPU read from the guest kernel's
// own structures (laid out by its DWARF), kernel stacks walked along the
// frame-pointer chain, and addresses named against kernel and module symbols.
// What differs between ISAs (frames, return addresses, the saved user
// registers) comes from the providers' IsaSupport.
//
// Invariants:
// - Nothing here writes guest memory or changes guest state (every access is
//   a NOFAULT read that reports a fault instead of taking one), except the
//   destructive actions -w allows: copyout, raise(), stop(), chill(), panic().
// - `firingCpu` is the CPU whose probe is being processed; user loads go
//   through that CPU's address space. The session sets it before each firing.
import { DEFAULT_EPOCH_SECONDS, PT_LOAD, STT_FUNC, parseElf, type DwarfInfo, type DwarfType, type Machine, type SafeRead } from '@wdtrace/kernel';
import type { ConsumerSymbols, GuestMemoryWindow, MachineInterface, ThreadIdentity } from '@wdtrace/dtrace-core';
import type { IsaSupport, SavedRegister } from './isa/index.js';
import type { SyscallThreads } from './syscall/provider.js';

/** Where the fields the framework needs sit in the guest kernel's structures. */
interface KernelLayout {
  cpuInfos: bigint;
  /** task_struct.tasks (the link in task_list) and .state, and TASK_ZOMBIE's value. */
  tasks: number;
  state: number;
  zombieState: number;
  /** TASK_STOPPED's value (stopped by a stop signal until SIGCONT). */
  stoppedState: number;
  /** task_struct.exit_code: the wait status (exit status << 8, or the killing signal). */
  exitCode: number;
  /** task_struct.regs: the user frame at the top of the kernel stack. */
  regs: number;
  /** Offsets in struct pt_regs of the user pc, frame pointer, stack pointer and the six system-call arguments. */
  userPc: number;
  userFp: number;
  userSp: number;
  /** The saved flags and the frame pointer used when they have `mask` set (ARM's Thumb state), if the ISA has one. */
  userThumbFp?: { flags: number; mask: bigint; fp: number };
  syscallArgs: readonly number[];
  cpuInfoSize: number;
  currTask: number;
  /** Per CPU: the address of its cpu_info's curr_task. */
  currTasks: readonly bigint[];
  pid: number;
  tgid: number;
  parent: number;
  isIdle: number;
  comm: number;
  commLength: number;
  /** The bytes of task_struct from pid, tgid, parent, is_idle and comm's first to their last, which a thread's identity is read from. */
  identitySpan: { start: number; length: number };
  /** The identity's fields in that span: offset and size, in pairs. */
  identityFields: readonly number[];
  /** task_struct.mm and mm_struct.pgd: a process's address space and its root table. */
  mm: number;
  pgd: number;
  /** task_struct.dtrace_sig and .dtrace_stop: what raise() and stop() post for the thread's way back to user mode. */
  dtraceSig: number;
  dtraceStop: number;
}

/** The guest kernel's signals are numbered 1 to 64 (raise() of a greater number is an illegal operation). */
const GUEST_SIGNALS = 64;

const IDLE: ThreadIdentity = { pid: 0, ppid: 0, tid: 0, uid: 0, gid: 0, execname: 'sched' };
const UTF8 = new TextDecoder();

/** A task's comm as text: its bytes up to the NUL, as UTF-8 (ASCII, the usual case, without a decoder). */
function commText(comm: Uint8Array): string {
  let text = '';
  for (let i = 0; i < comm.length; i++) {
    const b = comm[i]!;
    if (b === 0) break;
    if (b >= 0x80) {
      const end = comm.indexOf(0);
      return UTF8.decode(comm.subarray(0, end < 0 ? comm.length : end));
    }
    text += String.fromCharCode(b);
  }
  return text;
}
const MAX_FRAMES = 256;
/** The longest span of task_struct a thread's identity is read in one copy from; a longer one is read field by field. */
const IDENTITY_SPAN_LIMIT = 1024;

/** Whether two copies of the identity span hold the same bytes in each field (`fields`: offset and size in the span, in pairs), four at a time. */
function sameFields(a: DataView, b: DataView, fields: readonly number[]): boolean {
  for (let f = 0; f < fields.length; f += 2) {
    let i = fields[f]!;
    const end = i + fields[f + 1]!;
    for (; i + 4 <= end; i += 4) if (a.getUint32(i, true) !== b.getUint32(i, true)) return false;
    for (; i < end; i++) if (a.getUint8(i) !== b.getUint8(i)) return false;
  }
  return true;
}

/** The span of fields given as [offset, size]: from the first's first byte to the last's last. */
function span(fields: readonly (readonly [offset: number, size: number])[]): { start: number; length: number } {
  const start = Math.min(...fields.map(([offset]) => offset));
  const end = Math.max(...fields.map(([offset, size]) => offset + size));
  return { start, length: end - start };
}

interface ProgramImage {
  readonly symbols: readonly { name: string; value: bigint; size: bigint }[];
  readonly ranges: readonly (readonly [bigint, bigint])[];
}

export class GuestMachineView implements MachineInterface, SyscallThreads {
  readonly ncpus: number;
  readonly symbols: ConsumerSymbols;
  /** The CPU whose probe the framework is processing (user loads use its address space). */
  firingCpu = 0;
  /** Guest RAM for loads the framework walks itself: the machine's, translated as `load` translates (user loads in `firingCpu`'s address space). */
  readonly guestMemory: GuestMemoryWindow | undefined;
  private readonly word: number;
  private readonly epochNs: bigint;
  private layoutCache: KernelLayout | undefined;
  /** errno of each thread's last system call (the syscall provider sets it at syscall return). */
  readonly errnos = new Map<number, number>();

  /**
   * Per-thread virtual time (vtimestamp), kept while `startVtime` has been
   * called: nanoseconds each thread (by task address and pid) spent on a CPU
   * up to its last switch away, and when the thread on each CPU went on it.
   */
  private vtimes: Map<string, bigint> | undefined;
  private onCpuSince: bigint[] = [];

  /** The name each process had when a probe last fired in it (for naming its addresses later). */
  private readonly pidNames = new Map<number, string>();
  /** A guest program's function symbols and the address ranges its PT_LOAD segments occupy, by path (undefined: no such file). */
  private readonly programSymbols = new Map<string, ProgramImage | undefined>();
  private readonly programFile: (path: string) => Uint8Array | undefined;

  constructor(
    readonly machine: Machine,
    private readonly support: IsaSupport,
    options: {
      epochSeconds?: number;
      /** A file of the guest's file system by path (the initrd's), to name user addresses from its symbols. */
      programFile?: (path: string) => Uint8Array | undefined;
    } = {},
  ) {
    this.programFile = options.programFile ?? (() => undefined);
    const window = machine.memoryWindow();
    this.guestMemory = window && { ...window, translationRegisters: (words, at, user) => window.translationRegisters(words, at, user ? this.firingCpu : undefined) };
    this.ncpus = machine.cpuCount;
    this.word = support.wordSize;
    this.epochNs = BigInt(options.epochSeconds ?? DEFAULT_EPOCH_SECONDS) * 1_000_000_000n;
    this.symbols = {
      lookup: (a) => {
        const info = this.machine.symbols.lookup(BigInt.asUintN(this.word * 8, a));
        return info ? { module: info.module, symbol: { name: info.symbol.name, value: info.symbol.address } } : undefined;
      },
      lookupUser: (pid, a) => this.userSymbol(Number(pid), BigInt.asUintN(this.word * 8, a)),
    };
  }

  /** The kernel's DWARF (the machine's module list reads it once for every reader). */
  get dwarf(): DwarfInfo {
    const d = this.machine.kernelModules()[0]!.dwarf();
    if (!d) throw new Error('the guest kernel has no DWARF');
    return d;
  }

  now(): bigint {
    return BigInt(Math.floor(this.machine.now()));
  }

  walltime(): bigint {
    return this.epochNs + this.now();
  }

  load(addr: bigint, size: number, user: boolean): bigint | undefined {
    const va = BigInt.asUintN(64, addr);
    return this.machine.readWord(va, size, user ? this.machine.registers(this.firingCpu).pageTableRoot() : undefined);
  }

  /** copyout()/copyoutstr(): into the firing CPU's user address space, up to the first page that is not user-writable. */
  storeUser(addr: bigint, bytes: Uint8Array): bigint | undefined {
    return this.machine.writeUser(this.machine.registers(this.firingCpu).pageTableRoot(), BigInt.asUintN(64, addr), bytes);
  }

  /**
   * raise(): the signal waits in the thread's dtrace_sig (the guest kernel's
   * t_dtrace_sig) and the thread sends it to itself on its way back to user
   * mode. One pending signal: a second raise() before then is ignored. The
   * guest's signals are 1 to 64; 0 does nothing. An idle CPU has no thread
   * that returns to user mode: nothing happens.
   */
  raise(cpu: number, sig: bigint): boolean {
    if (sig < 0n || sig > BigInt(GUEST_SIGNALS)) return false;
    const task = this.userTask(cpu);
    if (sig === 0n || task === undefined) return true;
    const at = task + BigInt(this.layout().dtraceSig);
    if (this.readBytes(at, 1)?.[0] === 0) this.machine.writeText(at, Uint8Array.of(Number(sig)));
    return true;
  }

  /** stop(): the thread's dtrace_stop; it stops itself (SIGSTOP through its signal path) on its way back to user mode. */
  stop(cpu: number): void {
    const task = this.userTask(cpu);
    if (task !== undefined) this.machine.writeText(task + BigInt(this.layout().dtraceStop), Uint8Array.of(1));
  }

  /** chill(): the CPU spins in the probe for `ns` of virtual time. */
  chill(cpu: number, ns: bigint): void {
    this.machine.spin(Number(ns), cpu);
  }

  /** panic(): the guest kernel panics with dtrace's message. */
  panic(cpu: number, message: string): void {
    this.machine.panic(cpu, message);
  }

  /** The task running on `cpu` when it is a thread of a process (not the idle task), else undefined. */
  private userTask(cpu: number): bigint | undefined {
    const layout = this.layout();
    const task = this.readWord(layout.cpuInfos + BigInt(cpu * layout.cpuInfoSize + layout.currTask));
    if (!task) return undefined;
    const idle = this.readBytes(task + BigInt(layout.isIdle), 1);
    return idle && idle[0] === 0 ? task : undefined;
  }

  /**
   * The thread on `cpu`, read from the guest kernel's structures. The guest
   * changes them only by running, so what was read stays true while the
   * machine's instruction count is the same: the clauses of one firing (pid
   * and execname, a DIFO's every run) read it once. errno is the syscall
   * provider's, which it may set meanwhile, and is looked up at each call.
   */
  thread(cpu: number): ThreadIdentity {
    const at = this.machine.instructions;
    let known = this.threads[cpu];
    if (known === undefined) {
      known = { at, identity: this.readThread(cpu) };
      this.threads[cpu] = known;
    } else if (known.at !== at) {
      // Kept, not made anew: this runs at nearly every firing.
      known.identity = this.readThread(cpu);
      known.at = at;
    }
    const identity = known.identity;
    if (identity === IDLE) return IDLE;
    const errno = this.errnos.get(identity.tid) ?? 0;
    if (identity.errno !== errno) known.identity = { ...identity, errno };
    return known.identity;
  }
  /** Per CPU: the thread thread() read last, and the machine's instruction count then. */
  private readonly threads: ({ at: number; identity: ThreadIdentity } | undefined)[] = [];

  /** Per CPU: the identity span's bytes the identity read last was made from (none when it was read field by field). */
  private readonly keptFields: ({ bytes: Uint8Array; view: DataView } | undefined)[] = [];
  /** What readThread reads a task's identity into, and a view of it. */
  private identityBytes: Uint8Array | undefined;
  private identityView: DataView | undefined;

  private readThread(cpu: number): ThreadIdentity {
    const layout = this.layout();
    const task = this.readWord(layout.currTasks[cpu] ?? layout.cpuInfos + BigInt(cpu * layout.cpuInfoSize + layout.currTask));
    if (!task) return IDLE;
    // The fields it reads lie within a few hundred bytes of each other: one copy of them costs one translation or two, not one a field.
    const { start, length } = layout.identitySpan;
    let fields: Uint8Array | undefined;
    if (length <= IDENTITY_SPAN_LIMIT) {
      // Into a buffer kept for it (see readKernel).
      this.identityBytes ??= new Uint8Array(length);
      const r = this.machine.readKernel(task + BigInt(start), length, this.identityBytes);
      if ('bytes' in r) fields = r.bytes;
    }
    if (fields !== undefined) {
      // The same task with the same fields as the identity read last on this CPU (the usual case from one
      // firing to the next): that identity. Its ppid too: a task keeps its parent's task while the parent
      // lives (an orphan is reparented), and a task keeps its tgid.
      const view = (this.identityView ??= new DataView(fields.buffer, fields.byteOffset, fields.byteLength));
      const last = this.threads[cpu]?.identity;
      const kept = this.keptFields[cpu];
      if (last !== undefined && last !== IDLE && last.address === task && kept !== undefined && sameFields(view, kept.view, layout.identityFields)) return last;
      if (fields[layout.isIdle - start] !== 0) return IDLE;
      const tid = view.getInt32(layout.pid - start, true);
      const pid = view.getInt32(layout.tgid - start, true);
      const at = layout.parent - start;
      const parent = this.word === 8 ? view.getBigUint64(at, true) : BigInt(view.getUint32(at, true));
      const ppid = parent ? (this.readInt(parent + BigInt(layout.tgid)) ?? 0) : 0;
      const identity = this.identity(pid, ppid, tid, task, fields.subarray(layout.comm - start, layout.comm - start + layout.commLength));
      let keep = this.keptFields[cpu];
      if (keep === undefined) {
        const bytes = new Uint8Array(length);
        this.keptFields[cpu] = keep = { bytes, view: new DataView(bytes.buffer) };
      }
      keep.bytes.set(fields);
      return identity;
    }
    this.keptFields[cpu] = undefined;
    if (this.machine.readWord(task + BigInt(layout.isIdle), 1) !== 0n) return IDLE;
    const tid = this.readInt(task + BigInt(layout.pid)) ?? 0;
    const pid = this.readInt(task + BigInt(layout.tgid)) ?? 0;
    const parent = this.readWord(task + BigInt(layout.parent));
    const ppid = parent ? (this.readInt(parent + BigInt(layout.tgid)) ?? 0) : 0;
    return this.identity(pid, ppid, tid, task, this.readBytes(task + BigInt(layout.comm), layout.commLength));
  }

  /** A thread's identity from what readThread read of its task (its comm undefined when it could not be read). */
  private identity(pid: number, ppid: number, tid: number, task: bigint, comm: Uint8Array | undefined): ThreadIdentity {
    const execname = comm ? commText(comm) : '';
    if (this.pidNames.get(pid) !== execname) this.pidNames.set(pid, execname);
    // The guest kernel has one user, root.
    return { pid, ppid, tid, uid: 0, gid: 0, execname, address: task, errno: this.errnos.get(tid) ?? 0 };
  }

  /** SyscallThreads: the thread on `cpu`. */
  threadId(cpu: number): number {
    return this.thread(cpu).tid;
  }

  /** SyscallThreads: errno of thread `tid`'s last system call, as `errno` reads it. */
  setErrno(tid: number, errno: number): void {
    this.errnos.set(tid, errno);
  }

  /** SyscallThreads: the system-call arguments the thread on `cpu` entered the kernel with. */
  syscallArgs(cpu: number): readonly bigint[] | undefined {
    return this.userRegisters(cpu)?.args;
  }

  /**
   * Starts keeping per-thread virtual time, as illumos does while an
   * enabling uses vtimestamp (dtrace_vtime_enable): every thread starts at
   * 0 and the thread on each CPU is counted from now. The caller reports
   * each context switch with `switching`.
   */
  startVtime(): void {
    this.vtimes = new Map();
    const now = this.now();
    this.onCpuSince = Array.from({ length: this.ncpus }, () => now);
  }

  /** Stops keeping virtual time: vtimestamp is timestamp again. */
  stopVtime(): void {
    this.vtimes = undefined;
  }

  /**
   * The scheduler of `cpu` is about to switch from the thread on it to
   * another (the sched:::off-cpu site): the outgoing thread's time on the
   * CPU is added to its count, and the incoming one is counted from now.
   */
  switching(cpu: number): void {
    if (!this.vtimes) return;
    const now = this.now();
    const key = this.vtimeKey(cpu);
    if (key !== undefined) this.vtimes.set(key, (this.vtimes.get(key) ?? 0n) + onCpuFor(now, this.onCpuSince[cpu]));
    this.onCpuSince[cpu] = now;
  }

  /** vtimestamp: the time the thread on `cpu` has spent on CPUs, now included; undefined when not kept. */
  vtime(cpu: number): bigint | undefined {
    if (!this.vtimes) return undefined;
    const key = this.vtimeKey(cpu);
    const now = this.now();
    return (key === undefined ? 0n : (this.vtimes.get(key) ?? 0n)) + onCpuFor(now, this.onCpuSince[cpu]);
  }

  /** The thread on `cpu` as a key that a task structure reused for a later thread does not share. */
  private vtimeKey(cpu: number): string | undefined {
    const layout = this.layout();
    const task = this.readWord(layout.cpuInfos + BigInt(cpu * layout.cpuInfoSize + layout.currTask));
    if (!task) return undefined;
    return `${task.toString(16)}:${this.readInt(task + BigInt(layout.pid)) ?? 0}`;
  }

  /**
   * Whether a process (thread group) `pid` is alive in the guest: a task of
   * the kernel's task_list with that tgid that has not exited.
   */
  processAlive(pid: number): boolean {
    const layout = this.layout();
    for (const task of this.tasks()) {
      const state = this.readInt(task + BigInt(layout.state));
      if (this.readInt(task + BigInt(layout.tgid)) === pid && state !== undefined && state < layout.zombieState) return true;
    }
    return false;
  }

  /**
   * The pids of the live user processes, in task-list order: each thread
   * group's leader (tid == pid) that has not exited and has an address space.
   */
  userPids(): number[] {
    const layout = this.layout();
    const pids: number[] = [];
    for (const task of this.tasks()) {
      const pid = this.readInt(task + BigInt(layout.pid));
      const state = this.readInt(task + BigInt(layout.state));
      if (pid !== undefined && pid === this.readInt(task + BigInt(layout.tgid)) && state !== undefined && state < layout.zombieState && this.readWord(task + BigInt(layout.mm))) pids.push(pid);
    }
    return pids;
  }

  /**
   * The root table (CR3 / TTBR0 value, physical) of process `pid`'s address
   * space: its thread-group leader's mm; undefined when it has none (no such
   * process, a zombie, a kernel thread).
   */
  processRoot(pid: number): bigint | undefined {
    const task = this.processTask(pid);
    return task === undefined ? undefined : this.taskRoot(task);
  }

  /** The name (comm) of process `pid`, undefined when it is not alive. */
  processName(pid: number): string | undefined {
    const task = this.processTask(pid);
    if (task === undefined) return undefined;
    const layout = this.layout();
    const comm = this.readBytes(task + BigInt(layout.comm), layout.commLength);
    return comm ? commText(comm) : undefined;
  }

  /**
   * dtrace -p's grab sets a stopped process running: when process `pid` is
   * stopped (TASK_STOPPED), its pid goes to the guest kernel's
   * dtrace_continue_pid and the next clock tick sends it SIGCONT. Returns
   * whether it was stopped.
   */
  continueIfStopped(pid: number): boolean {
    const layout = this.layout();
    if (this.leaderTask(pid, (state) => state === layout.stoppedState) === undefined) return false;
    const at = this.machine.symbols.byName('dtrace_continue_pid');
    if (!at) throw new Error('the guest kernel has no dtrace_continue_pid');
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setInt32(0, pid, true);
    this.machine.writeText(at.address, bytes);
    return true;
  }

  /** The task_struct of process `pid`'s live leader (tid == pid), undefined when there is none. */
  private processTask(pid: number): bigint | undefined {
    return this.leaderTask(pid, (state) => state < this.layout().zombieState);
  }

  /** The task_struct of process `pid`'s leader (tid == pid) on the kernel's task list whose state `accept`s. */
  private leaderTask(pid: number, accept: (state: number) => boolean): bigint | undefined {
    const layout = this.layout();
    for (const task of this.tasks()) {
      const state = this.readInt(task + BigInt(layout.state));
      if (this.readInt(task + BigInt(layout.pid)) === pid && state !== undefined && accept(state)) return task;
    }
    return undefined;
  }

  /** The tasks of the kernel's task_list in list order: a bounded walk of NOFAULT reads that stops at a null or unreadable link. */
  private *tasks(): Generator<bigint> {
    const layout = this.layout();
    const head = this.machine.symbols.byName('task_list');
    if (!head) throw new Error('the guest kernel has no task_list');
    let node = this.readWord(head.address);
    for (let n = 0; node !== undefined && node !== 0n && node !== head.address && n < 65536; n++) {
      yield node - BigInt(layout.tasks);
      node = this.readWord(node);
    }
  }

  /** The root table of a task's address space (task_struct address), undefined without one. */
  taskRoot(task: bigint): bigint | undefined {
    const layout = this.layout();
    const mm = this.readWord(task + BigInt(layout.mm));
    if (!mm) return undefined;
    // paddr_t is 64 bits on both ISAs.
    const pgd = this.readBytes(mm + BigInt(layout.pgd), 8);
    return pgd ? littleEndian(pgd) : undefined;
  }

  /** The task_struct address of the thread on `cpu`, undefined when idle. */
  currentTask(cpu: number): bigint | undefined {
    const layout = this.layout();
    const task = this.readWord(layout.cpuInfos + BigInt(cpu * layout.cpuInfoSize + layout.currTask));
    return task || undefined;
  }

  /** The process (tgid) and thread id of a task_struct. */
  taskIds(task: bigint): { pid: number; tid: number } {
    const layout = this.layout();
    return { pid: this.readInt(task + BigInt(layout.tgid)) ?? 0, tid: this.readInt(task + BigInt(layout.pid)) ?? 0 };
  }

  /**
   * The wait status of process `pid` once its main thread has exited and
   * until its parent reaps it (exit status << 8, or the killing signal);
   * undefined while it runs or once it is gone.
   */
  exitStatus(pid: number): number | undefined {
    const layout = this.layout();
    const task = this.leaderTask(pid, (state) => state >= layout.zombieState);
    return task === undefined ? undefined : this.readInt(task + BigInt(layout.exitCode));
  }

  /**
   * Kernel frames as dtrace's stack() records them, innermost first: the
   * interrupted pc when the function there has its frame set up (a probe in
   * its body), else — at a function's first instruction (fbt entry), at a
   * return, in a function without a frame — the return address into its
   * caller, which the frame-pointer chain does not hold yet (FreeBSD's
   * "missing top of stack"); then the return addresses along the chain.
   */
  kernelStack(cpu: number, depth: number): bigint[] {
    const regs = this.machine.registers(cpu);
    if (regs.userMode() || depth <= 0) return [];
    const pcs: bigint[] = [];
    const pc = regs.pc();
    let fp = regs.fp();
    if (this.frameEstablished(pc)) pcs.push(pc);
    else {
      const ret = this.returnAddress(this.support.returnAddress(regs, this.kernelRead));
      if (ret === undefined || !this.isKernelText(ret)) return pcs;
      pcs.push(ret);
    }
    const retOffset = BigInt(this.word);
    const seen = new Set<bigint>();
    while (pcs.length < Math.min(depth, MAX_FRAMES) && fp !== 0n && !seen.has(fp)) {
      seen.add(fp);
      const ret = this.returnAddress(this.readWord(fp + retOffset));
      const next = this.readWord(fp);
      if (ret === undefined || next === undefined || !this.isKernelText(ret)) break;
      pcs.push(ret);
      fp = next;
    }
    return pcs.slice(0, depth);
  }

  /** dtrace_caller: the return address into the caller of the function the probe is in. */
  caller(cpu: number): bigint {
    const regs = this.machine.registers(cpu);
    if (regs.userMode()) return 0n;
    if (this.frameEstablished(regs.pc())) return this.returnAddress(this.readWord(regs.fp() + BigInt(this.word))) ?? 0n;
    return this.returnAddress(this.support.returnAddress(regs, this.kernelRead)) ?? 0n;
  }

  /** A saved return address as a code address (ARM: a return into Thumb code has bit 0 set). */
  private returnAddress(value: bigint | undefined): bigint | undefined {
    return value === undefined ? undefined : this.support.codeAddress(value);
  }

  /**
   * The user registers of the thread on `cpu`: the CPU's own when it stopped
   * in user mode, else the frame the kernel saved on entry (task->regs).
   */
  userRegisters(cpu: number): { pc: bigint; fp: bigint; sp: bigint; args: bigint[] } | undefined {
    const regs = this.machine.registers(cpu);
    if (regs.userMode()) {
      const args = this.support.syscallArgRegisters.map((n) => regs.get(n));
      return { pc: regs.pc(), fp: regs.fp(), sp: regs.sp(), args };
    }
    const layout = this.layout();
    const task = this.readWord(layout.cpuInfos + BigInt(cpu * layout.cpuInfoSize + layout.currTask));
    const frame = task ? this.readWord(task + BigInt(layout.regs)) : undefined;
    if (!frame) return undefined;
    const at = (off: number) => this.readWord(frame + BigInt(off));
    const pc = at(layout.userPc);
    const alt = layout.userThumbFp;
    const flags = alt ? at(alt.flags) : undefined;
    const fp = at(alt && flags !== undefined && (flags & alt.mask) !== 0n ? alt.fp : layout.userFp);
    const sp = at(layout.userSp);
    const args = layout.syscallArgs.map((off) => at(off) ?? 0n);
    return pc === undefined || fp === undefined || sp === undefined ? undefined : { pc, fp, sp, args };
  }

  /**
   * uregs[index] of the thread on `cpu`: from the CPU when it stopped in user
   * mode (a pid probe), else from the user frame the kernel saved on entry;
   * undefined for a number that names no register, a register that is not
   * kept, or a thread without user registers (a kernel thread).
   */
  userRegister(cpu: number, index: number): bigint | undefined {
    const reg = this.support.userRegister(index);
    if (!reg) return undefined;
    const regs = this.machine.registers(cpu);
    if (regs.userMode()) return reg.live?.(regs);
    if (!reg.saved) return undefined;
    const layout = this.layout();
    const task = this.readWord(layout.cpuInfos + BigInt(cpu * layout.cpuInfoSize + layout.currTask));
    const frame = task ? this.readWord(task + BigInt(layout.regs)) : undefined;
    if (!frame) return undefined;
    const ptRegs = structType(this.dwarf, 'struct pt_regs');
    return this.readWord(frame + BigInt(member(ptRegs, reg.saved.member).offset + (reg.saved.index ?? 0) * this.word));
  }

  /** User frames of the thread on `cpu`: its user pc (and at a function's first instruction the return address), then the frame-pointer chain in its address space. */
  userStack(cpu: number, depth: number): bigint[] {
    const user = depth > 0 ? this.userRegisters(cpu) : undefined;
    if (!user) return [];
    const regs = this.machine.registers(cpu);
    const root = regs.pageTableRoot();
    const pcs: bigint[] = [user.pc];
    // At a function's first instruction (a pid entry probe) its frame is not set up yet: the
    // caller's return address is on the stack (x86-64) or in lr (ARM), as illumos's
    // dtrace_getupcstack takes it under CPU_DTRACE_ENTRY.
    if (regs.userMode() && depth > 1 && this.userSymbol(this.thread(cpu).pid, user.pc)?.symbol?.value === user.pc) {
      const ret = this.support.returnAddress(regs, (va, length) => this.machine.readUser(root, va, length));
      if (ret) pcs.push(ret);
    }
    let fp = user.fp;
    const seen = new Set<bigint>();
    while (pcs.length < Math.min(depth, MAX_FRAMES) && fp !== 0n && !seen.has(fp)) {
      seen.add(fp);
      const saved = this.userWord(root, fp + BigInt(this.word));
      const ret = saved === undefined ? undefined : this.support.codeAddress(saved);
      const next = this.userWord(root, fp);
      if (!ret || next === undefined) break;
      pcs.push(ret);
      fp = next;
    }
    return pcs;
  }

  /**
   * A user address of process `pid`, named from the symbols of the program
   * it ran (found by its name in /bin, /sbin or /host of the guest's files;
   * the guest runs static executables, so one object holds all its code).
   */
  private userSymbol(pid: number, address: bigint): { module: string; symbol?: { name: string; value: bigint } } | undefined {
    const name = this.pidNames.get(pid);
    if (name === undefined) return undefined;
    let image: ProgramImage | undefined;
    for (const dir of ['/bin/', '/sbin/', '/host/']) {
      const path = dir + name;
      if (!this.programSymbols.has(path)) this.programSymbols.set(path, this.programImage(path));
      image = this.programSymbols.get(path);
      if (image !== undefined) break;
    }
    // Pobjname names an object only for an address inside one of its mappings.
    if (image === undefined || !image.ranges.some(([lo, hi]) => address >= lo && address < hi)) return undefined;
    const s = image.symbols.find((x) => address >= x.value && address < x.value + x.size);
    return s ? { module: name, symbol: { name: s.name, value: s.value } } : { module: name };
  }

  private programImage(path: string): ProgramImage | undefined {
    const bytes = this.programFile(path);
    if (bytes === undefined) return undefined;
    try {
      const elf = parseElf(bytes);
      return {
        symbols: elf
          .symbols()
          .filter((s) => s.type === STT_FUNC && s.size > 0 && s.name !== '')
          .map((s) => ({ name: s.name, value: this.support.codeAddress(s.value), size: BigInt(s.size) })),
        ranges: elf.programHeaders.filter((ph) => ph.type === PT_LOAD).map((ph) => [ph.vaddr, ph.vaddr + BigInt(ph.memsz)] as const),
      };
    } catch {
      return { symbols: [], ranges: [] };
    }
  }

  private isKernelText(address: bigint): boolean {
    return this.machine.symbols.functionAt(address) !== undefined;
  }

  /** Whether the function around `pc` has pushed its frame pointer and set up its frame. */
  private frameEstablished(pc: bigint): boolean {
    const fn = this.machine.symbols.functionAt(pc);
    if (!fn || fn.module !== 'kernel') return true;
    if (pc === fn.address) return false;
    return this.support.frameEstablished(fn.address, pc, (address, length) => originalBytes(this.machine, address, length), fn.thumb);
  }

  private layout(): KernelLayout {
    if (this.layoutCache) return this.layoutCache;
    const sym = this.machine.symbols.byName('cpu_infos');
    if (!sym) throw new Error('the guest kernel has no cpu_infos symbol');
    const d = this.dwarf;
    const cpuInfo = structType(d, 'struct cpu_info');
    const task = structType(d, 'struct task_struct');
    const comm = member(task, 'comm');
    const ptRegs = structType(d, 'struct pt_regs');
    // A register saved in an array member (ARM's r[]) is at its index in words.
    const saved = (r: SavedRegister): number => member(ptRegs, r.member).offset + (r.index ?? 0) * this.word;
    const frame = this.support.userFrame;
    const stateEnum = d.namedTypes.get('enum task_state');
    const stateType = stateEnum === undefined ? undefined : d.types.get(stateEnum);
    const zombie = stateType?.kind === 'enum' ? stateType.enumerators.find((e) => e.name === 'TASK_ZOMBIE')?.value : undefined;
    if (zombie === undefined) throw new Error("the guest kernel's DWARF has no TASK_ZOMBIE in enum task_state");
    const stopped = stateType?.kind === 'enum' ? stateType.enumerators.find((e) => e.name === 'TASK_STOPPED')?.value : undefined;
    if (stopped === undefined) throw new Error("the guest kernel's DWARF has no TASK_STOPPED in enum task_state");
    const currTask = member(cpuInfo, 'curr_task').offset;
    const commLength = d.sizeOf(comm.type) ?? 16;
    const identityFields: [number, number][] = [
      [member(task, 'pid').offset, 4],
      [member(task, 'tgid').offset, 4],
      [member(task, 'parent').offset, this.word],
      [member(task, 'is_idle').offset, 1],
      [comm.offset, commLength],
    ];
    this.layoutCache = {
      cpuInfos: sym.address,
      tasks: member(task, 'tasks').offset,
      state: member(task, 'state').offset,
      zombieState: Number(zombie),
      stoppedState: Number(stopped),
      exitCode: member(task, 'exit_code').offset,
      regs: member(task, 'regs').offset,
      userPc: saved(frame.pc),
      userFp: saved(frame.fp),
      userSp: saved(frame.sp),
      ...(frame.thumbFp ? { userThumbFp: { flags: saved(frame.thumbFp.flags), mask: frame.thumbFp.mask, fp: saved(frame.thumbFp.fp) } } : {}),
      syscallArgs: frame.syscallArgs.map(saved),
      cpuInfoSize: cpuInfo.size,
      currTask,
      currTasks: Array.from({ length: this.ncpus }, (_, cpu) => sym.address + BigInt(cpu * cpuInfo.size + currTask)),
      pid: member(task, 'pid').offset,
      tgid: member(task, 'tgid').offset,
      parent: member(task, 'parent').offset,
      isIdle: member(task, 'is_idle').offset,
      comm: comm.offset,
      commLength,
      identitySpan: span(identityFields),
      identityFields: identityFields.flatMap(([offset, size]) => [offset - span(identityFields).start, size]),
      mm: member(task, 'mm').offset,
      pgd: member(structType(d, 'struct mm_struct'), 'pgd').offset,
      dtraceSig: member(task, 'dtrace_sig').offset,
      dtraceStop: member(task, 'dtrace_stop').offset,
    };
    return this.layoutCache;
  }

  /** NOFAULT reads of kernel memory, as the ISA's frame rules take them. */
  private readonly kernelRead = (va: bigint, length: number): SafeRead => this.machine.readKernel(va, length);

  private readBytes(va: bigint, length: number): Uint8Array | undefined {
    const r: SafeRead = this.machine.readKernel(va, length);
    return 'bytes' in r ? r.bytes : undefined;
  }

  private readWord(va: bigint): bigint | undefined {
    return this.machine.readWord(va, this.word);
  }

  private readInt(va: bigint): number | undefined {
    const v = this.machine.readWord(va, 4);
    return v === undefined ? undefined : Number(v) | 0;
  }

  private userWord(root: bigint, va: bigint): bigint | undefined {
    return this.machine.readWord(va, this.word, root);
  }
}

function littleEndian(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

/** Bytes of the kernel image as linked (before any probe patched them). */
function originalBytes(machine: Machine, address: bigint, length: number): Uint8Array | undefined {
  for (const s of machine.kernel.sections) {
    if (s.addr === 0n || address < s.addr || address + BigInt(length) > s.addr + BigInt(s.size)) continue;
    if (s.type === 8) return undefined; // SHT_NOBITS
    const off = Number(address - s.addr);
    return machine.kernel.sectionData(s).subarray(off, off + length);
  }
  return undefined;
}

type StructType = Extract<DwarfType, { kind: 'struct' | 'union' }>;

function structType(d: DwarfInfo, name: string): StructType {
  const id = d.namedTypes.get(name);
  const t = id === undefined ? undefined : d.types.get(id);
  if (!t || (t.kind !== 'struct' && t.kind !== 'union')) throw new Error(`the guest kernel's DWARF has no ${name}`);
  return t;
}

function member(t: StructType, name: string): { offset: number; type: number } {
  const m = t.members.find((x) => x.name === name);
  if (!m) throw new Error(`the guest kernel's ${t.name ?? 'struct'} has no member ${name}`);
  return m;
}

/**
 * Time on a CPU from `since` to `now`: the CPUs' clocks differ by less than a
 * round, so a CPU behind the time counting started at has spent none yet.
 */
function onCpuFor(now: bigint, since: bigint | undefined): bigint {
  return since === undefined || now < since ? 0n : now - since;
}
