/* No translator accepts a pointer to struct foo (char * is not void *). */
typedef struct out { int which; } out_t;
struct foo { int x; };
translator out_t < char *s > { which = 4; };
BEGIN { trace(xlate <out_t> ((struct foo *)arg0).which); }
