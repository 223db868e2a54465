BEGIN { @ = llquantize(arg0, 1, 0, 6, 20); }
