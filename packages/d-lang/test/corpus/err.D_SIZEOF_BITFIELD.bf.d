struct s { int a : 3; }; BEGIN { trace(sizeof (((struct s *)0)->a)); }
