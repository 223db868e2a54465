typedef struct o { int a; } o_t; translator o_t < int x > { nosuch = x; };
