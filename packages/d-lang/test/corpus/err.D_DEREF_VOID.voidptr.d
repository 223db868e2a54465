BEGIN { trace(*(void *)arg0); }
