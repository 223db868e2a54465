BEGIN { (1)(); }
