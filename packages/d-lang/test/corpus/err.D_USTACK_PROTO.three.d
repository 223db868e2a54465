BEGIN { ustack(1, 2, 3); }
