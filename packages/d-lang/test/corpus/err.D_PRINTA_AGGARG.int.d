BEGIN { printa(1); }
