struct in { int a; int b; };
typedef struct out { int sum; } out_t;
translator out_t < struct in *i > { sum = i->a + i->b; };
BEGIN { trace(xlate <out_t *> ((struct in *)arg0)->sum); }
