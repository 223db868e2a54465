BEGIN { clear(1); }
