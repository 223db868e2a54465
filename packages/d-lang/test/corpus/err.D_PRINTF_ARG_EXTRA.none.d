BEGIN { printf("hello\n", 1); }
