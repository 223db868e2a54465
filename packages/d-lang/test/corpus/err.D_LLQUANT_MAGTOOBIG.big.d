BEGIN { @ = llquantize(arg0, 10, 0, 20, 20); }
