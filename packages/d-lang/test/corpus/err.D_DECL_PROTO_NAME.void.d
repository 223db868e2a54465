int f(void v);
