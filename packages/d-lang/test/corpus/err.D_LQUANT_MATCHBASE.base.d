BEGIN { @ = lquantize(arg0, 0, 10, 1); @ = lquantize(arg0, 1, 10, 1); }
