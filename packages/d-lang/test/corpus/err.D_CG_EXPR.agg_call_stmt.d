BEGIN { count(); }
