BEGIN { @ = sum(); }
