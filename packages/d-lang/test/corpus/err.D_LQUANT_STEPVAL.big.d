BEGIN { @ = lquantize(arg0, 0, 1000000, 100000); }
