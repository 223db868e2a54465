provider foo { probe x(); probe x(int); };
