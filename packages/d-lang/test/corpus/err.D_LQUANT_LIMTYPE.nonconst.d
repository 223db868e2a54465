BEGIN { @ = lquantize(arg0, 0, arg1, 1); }
