BEGIN { printa("%d\n"); }
