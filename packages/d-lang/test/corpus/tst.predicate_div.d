BEGIN /10 / 2 == 5/ { trace(1); }
