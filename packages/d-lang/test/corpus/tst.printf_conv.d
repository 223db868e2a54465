BEGIN { printf("%d %i %u %x %X %o %c %s %p %a %A %Y %5.2d %-10s %% %lld %llx\n", 1, 2, 3, 4, 5, 6, 65, "s", 0, 1, 2, walltimestamp, 3, "x", 1LL, 2ULL); }
