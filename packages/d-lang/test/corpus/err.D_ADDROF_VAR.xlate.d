typedef struct out { int which; } out_t;
translator out_t < int x > { which = x; };
BEGIN { this->p = &xlate <out_t> (1); }
