BEGIN { printf("%*d"); }
