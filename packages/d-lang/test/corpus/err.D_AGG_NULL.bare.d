BEGIN { @a = count(); } END { @a; }
