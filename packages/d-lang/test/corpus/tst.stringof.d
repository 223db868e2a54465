BEGIN { trace(stringof(arg0)); trace(stringof("x")); }
