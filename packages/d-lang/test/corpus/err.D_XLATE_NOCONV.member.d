typedef struct o { int a; int b; } o_t; translator o_t < int x > { a = x; }; BEGIN { trace(xlate <o_t> (1).b); }
