BEGIN { printf("%*d %.*s\n", 5, 1, 3, "abcdef"); }
