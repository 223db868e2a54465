BEGIN { trace(args); }
