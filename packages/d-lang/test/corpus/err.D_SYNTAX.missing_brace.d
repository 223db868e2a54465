BEGIN { trace(1);
