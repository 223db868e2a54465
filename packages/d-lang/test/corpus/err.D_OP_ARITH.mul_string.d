BEGIN { trace("a" * 2); }
