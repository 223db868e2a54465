BEGIN { trace(arg0.foo); }
