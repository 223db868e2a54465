struct s { int a; }; BEGIN / *(struct s *)arg0 / { }
