/* CPU-bound benchmark workload for the A32 core: sieve, CRC-32, a small
 * matrix product and a sort, repeated ITERATIONS times. Bare metal: no libc;
 * _start calls the work and exits with the Linux EABI exit system call (the
 * core stops on svc, qemu-arm exits). */
#ifndef ITERATIONS
#define ITERATIONS 40
#endif

static unsigned char sieve[8192];
static unsigned crc_table[256];
static int mat_a[16][16], mat_b[16][16], mat_c[16][16];
static int values[512];

static unsigned count_primes(void) {
  unsigned n = sizeof sieve, count = 0;
  for (unsigned i = 0; i < n; i++) sieve[i] = 1;
  for (unsigned i = 2; i < n; i++) {
    if (!sieve[i]) continue;
    count++;
    for (unsigned j = i + i; j < n; j += i) sieve[j] = 0;
  }
  return count;
}

static unsigned crc32(const unsigned char *p, unsigned len) {
  unsigned c = 0xffffffffu;
  while (len--) c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

static int matmul(int seed) {
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) { mat_a[i][j] = (i * 7 + j + seed) & 31; mat_b[i][j] = (i + j * 3 - seed) & 15; }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      int s = 0;
      for (int k = 0; k < 16; k++) s += mat_a[i][k] * mat_b[k][j];
      mat_c[i][j] = s;
    }
  return mat_c[seed & 15][3];
}

static int sort_values(unsigned seed) {
  for (int i = 0; i < 512; i++) { seed = seed * 1103515245u + 12345u; values[i] = (int)(seed >> 8); }
  for (int gap = 256; gap > 0; gap /= 2)
    for (int i = gap; i < 512; i++) {
      int v = values[i], j = i;
      while (j >= gap && values[j - gap] > v) { values[j] = values[j - gap]; j -= gap; }
      values[j] = v;
    }
  return values[100];
}

unsigned run_workload(void) {
  for (unsigned i = 0; i < 256; i++) {
    unsigned c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
  unsigned acc = 0;
  for (int it = 0; it < ITERATIONS; it++) {
    acc += count_primes();
    acc ^= crc32(sieve, sizeof sieve);
    acc += (unsigned)matmul(it);
    acc += (unsigned)sort_values(acc);
  }
  return acc;
}

__attribute__((naked, noreturn)) void _start(void) {
  __asm__ volatile(
      "bl run_workload\n"
      "and r0, r0, #0x7f\n"
      "mov r7, #1\n"
      "svc #0\n"
      "b .\n");
}
