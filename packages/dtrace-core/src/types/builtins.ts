// The built-in type dictionaries every D program starts with, after
// libdtrace's dt_open.c and its /usr/lib/dtrace library files:
//  - "C": the C base types, their common spellings and the <sys/types.h>
//    and <stdint.h> typedefs D programs use;
//  - "D": D's own types — string, and the structures of the standard
//    translators (psinfo_t, lwpsinfo_t, cpuinfo_t, bufinfo_t, devinfo_t,
//    fileinfo_t) that curpsinfo, curlwpsinfo, curcpu and the io/proc/sched
//    probes use.

import { type CType, type DataModel, type IntegerType, STRING, VOID, layoutStruct } from './ctype.js';
import { InMemoryTypeDictionary, floatType, integerType } from './dictionary.js';

/** The C base types and typedefs, sized for the data model (ILP32 for ARMv7, LP64 for x86-64). */
export function createCTypeDictionary(dataModel: DataModel): InMemoryTypeDictionary {
  const d = new InMemoryTypeDictionary('C', dataModel);
  const longSize = dataModel === 'LP64' ? 8 : 4;
  const def = (names: string[], t: CType): CType => {
    for (const n of names) d.defineType(n, t);
    return t;
  };
  const char = def(['char'], integerType('char', 1, true, { isChar: true })) as IntegerType;
  def(['signed char'], integerType('signed char', 1, true, { isChar: true }));
  const uchar = def(['unsigned char'], integerType('unsigned char', 1, false, { isChar: true }));
  const short = def(['short', 'short int', 'signed short', 'signed short int'], integerType('short', 2, true));
  const ushort = def(['unsigned short', 'unsigned short int'], integerType('unsigned short', 2, false));
  const int = def(['int', 'signed', 'signed int'], integerType('int', 4, true));
  const uint = def(['unsigned', 'unsigned int'], integerType('unsigned int', 4, false));
  const long = def(['long', 'long int', 'signed long', 'signed long int'], integerType('long', longSize, true));
  const ulong = def(['unsigned long', 'unsigned long int'], integerType('unsigned long', longSize, false));
  const llong = def(
    ['long long', 'long long int', 'signed long long', 'signed long long int'],
    integerType('long long', 8, true),
  );
  const ullong = def(['unsigned long long', 'unsigned long long int'], integerType('unsigned long long', 8, false));
  def(['_Bool'], integerType('_Bool', 1, false, { isBool: true }));
  def(['float'], floatType('float', 4));
  def(['double'], floatType('double', 8));
  def(['long double'], floatType('long double', 16));
  def(['void'], VOID);

  const typedef = (name: string, target: CType): CType => d.defineTypedef(name, target);
  typedef('int8_t', d.lookupType('signed char')!);
  typedef('int16_t', short);
  typedef('int32_t', int);
  typedef('int64_t', dataModel === 'LP64' ? long : llong);
  typedef('uint8_t', uchar);
  typedef('uint16_t', ushort);
  typedef('uint32_t', uint);
  typedef('uint64_t', dataModel === 'LP64' ? ulong : ullong);
  typedef('intptr_t', long);
  typedef('uintptr_t', ulong);
  typedef('intmax_t', d.lookupType('int64_t')!);
  typedef('uintmax_t', d.lookupType('uint64_t')!);
  typedef('ptrdiff_t', long);
  typedef('size_t', ulong);
  typedef('ssize_t', long);
  typedef('off_t', llong);
  typedef('off64_t', llong);
  typedef('loff_t', llong);
  typedef('time_t', long);
  typedef('hrtime_t', llong);
  typedef('clock_t', long);
  typedef('pid_t', int);
  typedef('id_t', int);
  typedef('uid_t', uint);
  typedef('gid_t', uint);
  typedef('mode_t', uint);
  typedef('dev_t', ulong);
  typedef('ino_t', ulong);
  typedef('nlink_t', uint);
  typedef('zoneid_t', int);
  typedef('taskid_t', int);
  typedef('projid_t', int);
  typedef('poolid_t', int);
  typedef('ctid_t', int);
  typedef('processorid_t', int);
  typedef('psetid_t', int);
  typedef('chipid_t', int);
  typedef('lgrp_id_t', int);
  typedef('major_t', uint);
  typedef('minor_t', uint);
  typedef('uchar_t', uchar);
  typedef('ushort_t', ushort);
  typedef('uint_t', uint);
  typedef('ulong_t', ulong);
  typedef('u_char', uchar);
  typedef('u_short', ushort);
  typedef('u_int', uint);
  typedef('u_long', ulong);
  typedef('longlong_t', llong);
  typedef('u_longlong_t', ullong);
  typedef('boolean_t', int);
  typedef('caddr_t', d.pointerTo(char));
  typedef('daddr_t', long);
  typedef('diskaddr_t', ullong);
  typedef('timestruc_t', timespec(d, long));
  typedef('greg_t', long);
  return d;
}

function timespec(d: InMemoryTypeDictionary, long: CType): CType {
  return d.defineStruct(
    layoutStruct('struct', 'timespec', [
      { name: 'tv_sec', type: d.lookupType('time_t') ?? long },
      { name: 'tv_nsec', type: long },
    ]),
  );
}

/** D's own types: string and the translator output structures. `c` supplies the base types. */
export function createDTypeDictionary(c: InMemoryTypeDictionary): InMemoryTypeDictionary {
  const d = new InMemoryTypeDictionary('D', c.dataModel);
  const t = (name: string): CType => {
    const found = c.lookupType(name);
    if (found === undefined) throw new Error(`built-in type ${name} missing`);
    return found;
  };
  const arr = (element: CType, count: number): CType => ({ kind: 'array', element, count });
  d.defineType('string', STRING);

  // lwpsinfo_t (illumos <sys/procfs.h> subset the lwpsinfo translator fills).
  const lwpsinfo = d.defineStruct(
    layoutStruct('struct', 'lwpsinfo', [
      { name: 'pr_flag', type: t('int') },
      { name: 'pr_lwpid', type: t('id_t') },
      { name: 'pr_addr', type: t('uintptr_t') },
      { name: 'pr_wchan', type: t('uintptr_t') },
      { name: 'pr_stype', type: t('char') },
      { name: 'pr_state', type: t('char') },
      { name: 'pr_sname', type: t('char') },
      { name: 'pr_nice', type: t('char') },
      { name: 'pr_syscall', type: t('short') },
      { name: 'pr_oldpri', type: t('char') },
      { name: 'pr_cpu', type: t('char') },
      { name: 'pr_pri', type: t('int') },
      { name: 'pr_pctcpu', type: t('ushort_t') },
      { name: 'pr_start', type: t('timestruc_t') },
      { name: 'pr_time', type: t('timestruc_t') },
      { name: 'pr_clname', type: arr(t('char'), 8) },
      { name: 'pr_name', type: arr(t('char'), 16) },
      { name: 'pr_onpro', type: t('processorid_t') },
      { name: 'pr_bindpro', type: t('processorid_t') },
      { name: 'pr_bindpset', type: t('psetid_t') },
      { name: 'pr_lgrp', type: t('lgrp_id_t') },
    ]),
  );
  d.defineTypedef('lwpsinfo_t', lwpsinfo);

  // psinfo_t (illumos <sys/procfs.h>: PRFNSZ 16, PRARGSZ 80).
  const psinfo = d.defineStruct(
    layoutStruct('struct', 'psinfo', [
      { name: 'pr_flag', type: t('int') },
      { name: 'pr_nlwp', type: t('int') },
      { name: 'pr_pid', type: t('pid_t') },
      { name: 'pr_ppid', type: t('pid_t') },
      { name: 'pr_pgid', type: t('pid_t') },
      { name: 'pr_sid', type: t('pid_t') },
      { name: 'pr_uid', type: t('uid_t') },
      { name: 'pr_euid', type: t('uid_t') },
      { name: 'pr_gid', type: t('gid_t') },
      { name: 'pr_egid', type: t('gid_t') },
      { name: 'pr_addr', type: t('uintptr_t') },
      { name: 'pr_size', type: t('size_t') },
      { name: 'pr_rssize', type: t('size_t') },
      { name: 'pr_ttydev', type: t('dev_t') },
      { name: 'pr_pctcpu', type: t('ushort_t') },
      { name: 'pr_pctmem', type: t('ushort_t') },
      { name: 'pr_start', type: t('timestruc_t') },
      { name: 'pr_time', type: t('timestruc_t') },
      { name: 'pr_ctime', type: t('timestruc_t') },
      { name: 'pr_fname', type: arr(t('char'), 16) },
      { name: 'pr_psargs', type: arr(t('char'), 80) },
      { name: 'pr_wstat', type: t('int') },
      { name: 'pr_argc', type: t('int') },
      { name: 'pr_argv', type: t('uintptr_t') },
      { name: 'pr_envp', type: t('uintptr_t') },
      { name: 'pr_dmodel', type: t('char') },
      { name: 'pr_taskid', type: t('taskid_t') },
      { name: 'pr_projid', type: t('projid_t') },
      { name: 'pr_nzomb', type: t('int') },
      { name: 'pr_poolid', type: t('poolid_t') },
      { name: 'pr_zoneid', type: t('zoneid_t') },
      { name: 'pr_contract', type: t('id_t') },
      { name: 'pr_lwp', type: lwpsinfo },
    ]),
  );
  d.defineTypedef('psinfo_t', psinfo);

  // cpuinfo_t (sched.d).
  const cpuinfo = d.defineStruct(
    layoutStruct('struct', 'cpuinfo', [
      { name: 'cpu_id', type: t('processorid_t') },
      { name: 'cpu_pset', type: t('psetid_t') },
      { name: 'cpu_chip', type: t('chipid_t') },
      { name: 'cpu_lgrp', type: t('lgrp_id_t') },
      { name: 'cpu_info', type: t('uintptr_t') },
    ]),
  );
  d.defineTypedef('cpuinfo_t', cpuinfo);

  // bufinfo_t, devinfo_t, fileinfo_t (io.d).
  const str = STRING;
  const bufinfo = d.defineStruct(
    layoutStruct('struct', 'bufinfo', [
      { name: 'b_flags', type: t('int') },
      { name: 'b_bcount', type: t('size_t') },
      { name: 'b_addr', type: t('caddr_t') },
      { name: 'b_blkno', type: t('uint64_t') },
      { name: 'b_lblkno', type: t('uint64_t') },
      { name: 'b_resid', type: t('size_t') },
      { name: 'b_bufsize', type: t('size_t') },
      { name: 'b_iodone', type: t('caddr_t') },
      { name: 'b_error', type: t('int') },
      { name: 'b_edev', type: t('dev_t') },
    ]),
  );
  d.defineTypedef('bufinfo_t', bufinfo);
  const devinfo = d.defineStruct(
    layoutStruct('struct', 'devinfo', [
      { name: 'dev_major', type: t('int') },
      { name: 'dev_minor', type: t('int') },
      { name: 'dev_instance', type: t('int') },
      { name: 'dev_name', type: str },
      { name: 'dev_statname', type: str },
      { name: 'dev_pathname', type: str },
    ]),
  );
  d.defineTypedef('devinfo_t', devinfo);
  const fileinfo = d.defineStruct(
    layoutStruct('struct', 'fileinfo', [
      { name: 'fi_name', type: str },
      { name: 'fi_dirname', type: str },
      { name: 'fi_pathname', type: str },
      { name: 'fi_offset', type: t('off_t') },
      { name: 'fi_fs', type: str },
      { name: 'fi_mount', type: str },
      { name: 'fi_oflags', type: t('int') },
    ]),
  );
  d.defineTypedef('fileinfo_t', fileinfo);
  return d;
}
