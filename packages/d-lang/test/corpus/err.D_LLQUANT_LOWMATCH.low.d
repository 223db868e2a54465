BEGIN { @ = llquantize(arg0, 10, 0, 6, 20); @ = llquantize(arg0, 10, 1, 6, 20); }
