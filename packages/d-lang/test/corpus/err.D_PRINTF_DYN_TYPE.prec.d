BEGIN { printf("%*.*d\n", 1, "two", 3); }
