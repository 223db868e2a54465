int f(int, void);
