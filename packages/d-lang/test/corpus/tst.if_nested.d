BEGIN /arg1/ { x = 1; if (x) { if (arg0) trace(1); else trace(2); } }
