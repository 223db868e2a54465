BEGIN { @a[1] = count(); @b[1] = sum(2); } END { printa(@a); printa("%d %@d %@d\n", @a, @b); }
