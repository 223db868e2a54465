BEGIN { printf("%d %1$d\n", 1); }
