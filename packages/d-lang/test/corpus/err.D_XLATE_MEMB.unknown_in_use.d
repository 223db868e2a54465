typedef struct out { int which; } out_t;
translator out_t < int x > { which = x; other = x; };
