BEGIN { printf("hello\n"); }
