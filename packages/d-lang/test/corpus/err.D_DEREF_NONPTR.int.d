BEGIN { trace(*arg0); }
