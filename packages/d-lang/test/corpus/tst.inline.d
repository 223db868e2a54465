inline int MAXV = 100; inline string NAME = "name"; BEGIN { trace(MAXV + 1); trace(NAME); }
