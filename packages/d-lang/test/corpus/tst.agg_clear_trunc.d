BEGIN { @a[1] = count(); } END { clear(@a); trunc(@a); trunc(@a, 5); normalize(@a, 10); denormalize(@a); }
