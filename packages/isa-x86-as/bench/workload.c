/* CPU-bound benchmark workload: checksum, insertion/shell sort and FNV hash
 * loops over a buffer. Built for the bare core (bench/run.mjs) and natively. */
typedef unsigned long u64;
typedef unsigned int u32;

static u32 data[4096];

static u32 checksum(const u32 *p, int n) {
  u32 a = 1, b = 0;
  for (int i = 0; i < n; i++) { a = (a + p[i]) % 65521; b = (b + a) % 65521; }
  return (b << 16) | a;
}

static void shellsort(u32 *p, int n) {
  for (int gap = n / 2; gap > 0; gap /= 2)
    for (int i = gap; i < n; i++) {
      u32 t = p[i];
      int j = i;
      for (; j >= gap && p[j - gap] > t; j -= gap) p[j] = p[j - gap];
      p[j] = t;
    }
}

static u64 fnv(const unsigned char *s, int n) {
  u64 h = 1469598103934665603UL;
  for (int i = 0; i < n; i++) { h ^= s[i]; h *= 1099511628211UL; }
  return h;
}

u64 workload(int rounds) {
  u64 acc = 0;
  u32 x = 12345;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 4096; i++) { x = x * 1103515245 + 12345; data[i] = x >> 8; }
    acc += checksum(data, 4096);
    shellsort(data, 4096);
    acc ^= fnv((const unsigned char *)data, sizeof data);
    acc += data[r & 4095];
  }
  return acc;
}
