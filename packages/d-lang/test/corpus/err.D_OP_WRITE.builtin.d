BEGIN { timestamp = 1; }
