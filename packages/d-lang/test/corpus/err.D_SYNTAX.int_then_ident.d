BEGIN { trace(10ms); }
