int a[2];
int b[2];
BEGIN { a = b; }
