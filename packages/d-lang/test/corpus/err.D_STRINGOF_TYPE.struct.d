struct s { int a; }; BEGIN { trace(stringof(*(struct s *)0)); }
