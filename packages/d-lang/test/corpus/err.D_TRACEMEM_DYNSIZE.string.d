BEGIN { tracemem(arg0, 10, "x"); }
