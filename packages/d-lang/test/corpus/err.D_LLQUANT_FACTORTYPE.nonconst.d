BEGIN { @ = llquantize(arg0, arg1, 0, 6, 20); }
