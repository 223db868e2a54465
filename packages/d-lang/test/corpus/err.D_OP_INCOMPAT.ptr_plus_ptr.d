BEGIN { trace((int *)0 + (int *)0); }
