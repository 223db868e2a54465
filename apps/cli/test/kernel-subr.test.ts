// The kernel-object subroutines as illumos's dtrace_dif_subr runs them: on
// memory that holds no such object they fault (dtrace:::ERROR, reported in
// dtrace(1)'s words); on memory laid out as one they read it; copyout and
// copyoutstr write into the traced process when there is one.
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

describe('kernel-object subroutines on the idle machine', () => {
  it('fault with a bad address or alignment where illumos loads the object', async () => {
    const r = await wdtrace(
      '-q', '-n',
      'BEGIN { mutex_owned((void *)0x1000); } BEGIN { rw_iswriter((void *)0x1004); } BEGIN { msgsize((void *)0x2000); } ' +
        'BEGIN { trace(ddi_pathname((void *)0x3000, 0)); } BEGIN { printf("[%s] %p\\n", ddi_pathname(0, -1), getf(1)); exit(0); }',
    );
    expect(r.stdout).toBe('[] 0\n\n');
    expect(r.stderr).toBe(
      'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x1000) in action #1 at DIF offset 12\n' +
        'dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid alignment (0x1004) in action #1 at DIF offset 12\n' +
        // msgsize() reads b_wptr first.
        'dtrace: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): invalid address (0x2020) in action #1 at DIF offset 12\n' +
        'dtrace: error on enabled probe ID 4 (ID 1: dtrace:::BEGIN): invalid address (0x3000) in action #1 at DIF offset 20\n',
    );
  });
  it('read a mutex and an rwlock laid out in scratch memory', async () => {
    const r = await wdtrace(
      '-q', '-n',
      'BEGIN { this->m = (uint64_t *)alloca(16); this->m[0] = 0x1234500 | 1; this->m[1] = 0x1ff; ' +
        'printf("%d %p %d %d\\n", mutex_owned(this->m), mutex_owner(this->m), mutex_type_adaptive(this->m), mutex_type_spin(this->m)); ' +
        'printf("%d %p %d %d\\n", mutex_owned(&this->m[1]), mutex_owner(&this->m[1]), mutex_type_adaptive(&this->m[1]), mutex_type_spin(&this->m[1])); ' +
        'this->m[0] = 3 << 3; printf("%d %d %d\\n", rw_read_held(this->m), rw_write_held(this->m), rw_iswriter(this->m)); exit(0); }',
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('1 1234500 1 0\n1 0 0 1\n1 0 0\n\n');
  });
  it('fault in copyout and copyoutstr, which have no process to write to', async () => {
    const r = await wdtrace('-w', '-q', '-n', 'BEGIN { this->p = alloca(4); copyout(this->p, 0x1000, 4); } BEGIN { copyoutstr("x", 0x2000, 2); } BEGIN { exit(0); }');
    expect(r.stderr).toBe(
      'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x1000) in action #2 at DIF offset 28\n' +
        'dtrace: error on enabled probe ID 2 (ID 1: dtrace:::BEGIN): invalid address (0x2000) in action #1 at DIF offset 28\n',
    );
  });
});

describe('copyout and copyoutstr in the guest', () => {
  it('overwrite the buffer a process passes to write(2) (x86_64 and arm)', async () => {
    const x86 = await wdtrace('-w', '-q', '-n', 'syscall::write:entry /pid == $target/ { copyoutstr("HELLO", arg1, 5); }', '-c', '/bin/echo hello world');
    expect(x86.stdout).toContain('HELLO world\n');
    const arm = await wdtrace('--arch', 'arm', '-w', '-q', '-n', 'syscall::write:entry /pid == $target/ { copyout(arg1 + 6, arg1, 5); }', '-c', '/bin/echo hello world');
    expect(arm.stdout).toContain('world world\n');
  });
});
