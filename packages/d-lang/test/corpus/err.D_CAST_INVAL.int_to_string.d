BEGIN { trace((string)1); }
