long string x;
