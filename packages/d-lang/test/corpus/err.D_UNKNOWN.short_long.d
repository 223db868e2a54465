short long x;
