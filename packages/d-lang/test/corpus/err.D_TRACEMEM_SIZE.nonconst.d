BEGIN { tracemem(arg0, arg1); }
