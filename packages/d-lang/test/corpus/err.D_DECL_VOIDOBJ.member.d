struct s { void v; };
