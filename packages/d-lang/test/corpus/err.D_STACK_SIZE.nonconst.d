BEGIN { stack(arg0); }
