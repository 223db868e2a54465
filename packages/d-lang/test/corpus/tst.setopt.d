BEGIN { setopt("quiet"); setopt("bufsize", "4m"); ftruncate(); }
