BEGIN { @ = lquantize(arg0, 0x100000000, 0x100000010, 1); }
