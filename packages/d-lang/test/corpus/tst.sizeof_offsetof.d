struct foo { int a; char b; long c; }; BEGIN { trace(sizeof (int)); trace(sizeof (struct foo)); trace(offsetof(struct foo, c)); trace(sizeof (arg0)); trace(sizeof arg0); }
