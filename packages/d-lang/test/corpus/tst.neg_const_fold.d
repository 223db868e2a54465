BEGIN { trace(-2147483648); trace(1 << 62); trace(0 - 1); }
