BEGIN { @a = sum("abc"); }
