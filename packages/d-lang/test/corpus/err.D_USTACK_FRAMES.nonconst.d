BEGIN { ustack(arg0); }
