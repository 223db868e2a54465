BEGIN { @a[1] = count(); } END { @a[1]; }
