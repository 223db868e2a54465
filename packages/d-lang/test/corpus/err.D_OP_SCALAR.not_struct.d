struct s { int a; }; BEGIN { trace(!*(struct s *)0); }
