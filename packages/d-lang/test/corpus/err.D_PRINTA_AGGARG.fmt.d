BEGIN { printa("%d", 1); }
