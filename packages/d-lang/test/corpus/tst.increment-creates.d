/* ++ and -- create what they apply to, as int64_t. */
tick-1s /i++ >= 5/ { exit(0); }
BEGIN { self->n++; this->m--; qlen[cpu]++; self->per[probefunc]++; }
BEGIN { x = i + self->n + this->m + qlen[0] + self->per["x"]; }
