BEGIN { a[1] = 2; b[a[1]] = 3; trace(b[a[1]]); }
