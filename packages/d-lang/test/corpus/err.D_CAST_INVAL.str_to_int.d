BEGIN { trace((int)"abc"); }
