translator int < int x > { a = x; };
