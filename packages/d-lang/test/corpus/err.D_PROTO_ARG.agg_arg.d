BEGIN { @a = count(); trace(strlen(@a)); }
