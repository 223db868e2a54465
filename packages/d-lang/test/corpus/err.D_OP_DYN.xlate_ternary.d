typedef struct out { int which; } out_t;
translator out_t < int x > { which = x; };
BEGIN { this->t = arg0 ? xlate <out_t> (1) : xlate <out_t> (2); }
