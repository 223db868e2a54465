BEGIN { @a = count(); x = @a; }
