BEGIN { if (arg0 > 1) { trace(1); } else if (arg0 == 0) { trace(2); } else { trace(3); } trace(4); }
