BEGIN { printf("%@d", 1); }
