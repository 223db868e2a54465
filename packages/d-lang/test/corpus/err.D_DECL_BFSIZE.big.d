struct s { char a : 9; };
