BEGIN { @ = llquantize(arg0, 10, 0, arg1, 20); }
