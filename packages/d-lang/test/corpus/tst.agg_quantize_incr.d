BEGIN { @ = quantize(arg0, 2); }
