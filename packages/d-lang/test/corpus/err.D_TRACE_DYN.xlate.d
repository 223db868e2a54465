/* trace() takes a translated struct (built whole) but not a translated pointer. */
typedef struct out { int which; } out_t;
translator out_t < int x > { which = x; };
BEGIN { trace(xlate <out_t *> (1)); }
