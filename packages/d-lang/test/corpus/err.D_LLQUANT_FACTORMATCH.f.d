BEGIN { @ = llquantize(arg0, 10, 0, 6, 20); @ = llquantize(arg0, 5, 0, 6, 25); }
