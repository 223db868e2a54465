struct s { int; };
