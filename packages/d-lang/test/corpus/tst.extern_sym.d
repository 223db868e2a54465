BEGIN { trace(`x); trace(kernel`x); }
