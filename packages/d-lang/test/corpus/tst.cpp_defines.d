/* @cpp */
#define N 5
#define SQ(x) ((x) * (x))
#if N > 3
BEGIN { trace(SQ(N)); }
#else
BEGIN { trace(0) }
#endif
