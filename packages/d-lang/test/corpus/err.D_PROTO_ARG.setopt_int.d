BEGIN { setopt(1); }
