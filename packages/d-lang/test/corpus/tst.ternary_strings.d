BEGIN { trace(arg0 ? "yes" : "no"); x = arg0 ? 1 : 2L; }
