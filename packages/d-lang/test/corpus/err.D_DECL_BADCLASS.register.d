register int x;
