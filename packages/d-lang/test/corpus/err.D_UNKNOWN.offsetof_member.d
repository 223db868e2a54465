struct s { int a; }; BEGIN { trace(offsetof(struct s, zz)); }
