BEGIN { @ = lquantize(arg0, 10, 0, 1); }
