/* The output type has the member, the translator does not define it. */
typedef struct out { int which; int other; } out_t;
translator out_t < int x > { which = x; };
BEGIN { trace(xlate <out_t *> (arg0)->other); }
