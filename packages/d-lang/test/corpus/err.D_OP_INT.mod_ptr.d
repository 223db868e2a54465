BEGIN { trace((int *)0 % 2); }
