BEGIN { a[1] = 1; x = a + 1; }
