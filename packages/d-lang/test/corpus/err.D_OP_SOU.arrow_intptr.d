BEGIN { trace(((int *)0)->foo); }
