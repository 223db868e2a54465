kernel`nosuch_t x;
