typedef struct out { int which; } out_t;
translator out_t < string s > { which = 1; };
BEGIN { this->t = xlate <out_t> (arg0); }
