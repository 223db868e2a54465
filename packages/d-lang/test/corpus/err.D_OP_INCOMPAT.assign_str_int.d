BEGIN { s = "a"; s = 1; }
