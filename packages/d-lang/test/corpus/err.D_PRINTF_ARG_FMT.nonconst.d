BEGIN { printf(execname); }
