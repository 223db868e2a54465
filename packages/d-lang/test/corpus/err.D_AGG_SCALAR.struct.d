struct s { int a; }; BEGIN { @a = sum(*(struct s *)0); }
