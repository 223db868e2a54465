BEGIN { exit("x"); }
