BEGIN { clear(); }
