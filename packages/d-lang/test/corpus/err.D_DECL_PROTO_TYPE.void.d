int a[void];
