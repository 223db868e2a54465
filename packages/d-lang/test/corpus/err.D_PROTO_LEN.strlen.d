BEGIN { trace(strlen()); }
