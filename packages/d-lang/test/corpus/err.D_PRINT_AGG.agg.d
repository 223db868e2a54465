BEGIN { @a = count(); print(@a); }
