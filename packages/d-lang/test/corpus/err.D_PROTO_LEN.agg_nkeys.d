BEGIN { @a[1] = count(); @a[1, 2] = count(); }
