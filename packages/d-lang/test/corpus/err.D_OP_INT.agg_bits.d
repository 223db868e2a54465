BEGIN { @a = count(); trace(@a & 1); }
