BEGIN { @ = lquantize(arg0, 0, 10, arg1); }
