BEGIN { @ = count(1); }
