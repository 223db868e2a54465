BEGIN { pid++; }
