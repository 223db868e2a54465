BEGIN { @ = llquantize(arg0, 100000, 0, 6, 20); }
