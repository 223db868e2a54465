BEGIN { printf("%s\n", 1); }
