struct s { int a; }; BEGIN { tracemem(*(struct s *)0, 3); }
