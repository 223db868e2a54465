typedef struct o { int a; } o_t; BEGIN { trace(xlate <o_t> (1).a); }
