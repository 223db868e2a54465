BEGIN { printf("%d\n", "abc"); }
