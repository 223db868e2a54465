/* Decode corpus: integer arithmetic, 64-bit, bit tricks, saturation. */
typedef unsigned int u32; typedef unsigned long long u64; typedef long long i64;
u32 popcount32(u32 x) { x = x - ((x >> 1) & 0x55555555); x = (x & 0x33333333) + ((x >> 2) & 0x33333333); return (((x + (x >> 4)) & 0x0f0f0f0f) * 0x01010101) >> 24; }
u32 bswap(u32 x) { return __builtin_bswap32(x); }
int clz(u32 x) { return x ? __builtin_clz(x) : 32; }
u64 mul64(u64 a, u64 b) { return a * b; }
i64 smul(int a, int b) { return (i64)a * b; }
int sdiv(int a, int b) { return b ? a / b : 0; }
u32 udiv(u32 a, u32 b) { return b ? a / b : 0; }
int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
short sat16(int v) { return v > 32767 ? 32767 : v < -32768 ? -32768 : (short)v; }
u32 bitfield(u32 x) { return ((x >> 5) & 0x3f) | ((x & 0xff) << 12); }
int sext8(int x) { return (signed char)x + (short)(x >> 8); }
u32 rotl(u32 x, int n) { return (x << (n & 31)) | (x >> ((32 - n) & 31)); }
u64 fib(int n) { u64 a = 0, b = 1; while (n--) { u64 t = a + b; a = b; b = t; } return a; }
int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
u32 isqrt(u32 n) { u32 x = n, y = (x + 1) / 2; while (y < x) { x = y; y = (x + n / x) / 2; } return x; }
i64 dot(const short *a, const short *b, int n) { i64 s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }
