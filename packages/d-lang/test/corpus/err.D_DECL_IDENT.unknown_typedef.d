`nosuch_t x;
