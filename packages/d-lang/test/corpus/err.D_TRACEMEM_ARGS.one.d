BEGIN { tracemem(arg0); }
