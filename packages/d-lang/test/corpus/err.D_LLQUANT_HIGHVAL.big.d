BEGIN { @ = llquantize(arg0, 10, 0, 100000, 20); }
