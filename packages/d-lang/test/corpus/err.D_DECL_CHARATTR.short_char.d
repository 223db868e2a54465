short char x;
