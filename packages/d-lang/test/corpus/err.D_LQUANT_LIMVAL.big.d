BEGIN { @ = lquantize(arg0, 0, 0x100000000, 1); }
