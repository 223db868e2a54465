BEGIN { trace(copyin(arg0, "x")); }
