BEGIN { a["x", 1] = 5; b[1] = "s"; trace(a["x", 1]); trace(b[1]); }
