BEGIN { @ = lquantize(arg0, arg1, 10, 1); }
