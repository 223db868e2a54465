BEGIN { @x = count(); } END { printa("%@d\n", @x); }
