int x; int x;
