BEGIN { trace(0128); }
