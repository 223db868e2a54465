BEGIN { trunc(1); }
