BEGIN { trace(substr("a")); }
