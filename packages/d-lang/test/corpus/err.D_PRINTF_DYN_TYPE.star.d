BEGIN { printf("%*d", "x", 1); }
