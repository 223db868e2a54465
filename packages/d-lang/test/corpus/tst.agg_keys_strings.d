BEGIN { @[execname, probefunc, 1] = sum(arg0); }
