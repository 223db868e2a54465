provider foo { probe x(int, int, int, int, int, int, int, int, int, int, int); };
