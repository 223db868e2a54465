BEGIN { ustack(5, arg0); }
