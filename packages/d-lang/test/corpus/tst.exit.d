BEGIN { exit(1); }
