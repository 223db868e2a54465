BEGIN { trace(nosuchfunc(1)); }
