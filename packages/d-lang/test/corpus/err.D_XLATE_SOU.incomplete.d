struct later;
translator struct later < int x > { a = x; };
