struct s { int a : timestamp; };
