BEGIN { @ = quantize(); }
