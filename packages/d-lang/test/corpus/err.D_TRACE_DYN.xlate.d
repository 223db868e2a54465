/* A translation has a dynamic type: trace() it only once assigned or dereferenced. */
typedef struct out { int which; } out_t;
translator out_t < int x > { which = x; };
BEGIN { trace(xlate <out_t> (1)); }
