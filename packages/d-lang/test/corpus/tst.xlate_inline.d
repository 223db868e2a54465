/* Inlines of translations, as dtrace's own curpsinfo-style definitions use them. */
typedef struct out { int id; long twice; string name; } out_t;
translator out_t < uint64_t x > { id = x; twice = x * 2; name = x > 5 ? "big" : "small"; };
inline out_t *cur = xlate <out_t *> (arg1);
inline out_t whole = xlate <out_t> (arg0);
BEGIN { trace(cur->id); trace(cur->name); this->w = whole; trace(this->w.twice); }
