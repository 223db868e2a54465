BEGIN { @a[1] = count(); @a["x"] = count(); }
