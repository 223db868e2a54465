BEGIN { x = 1; x /= 0; }
