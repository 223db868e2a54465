BEGIN { @ = llquantize(arg0, 10, 100000, 6, 20); }
