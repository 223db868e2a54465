int a[timestamp];
