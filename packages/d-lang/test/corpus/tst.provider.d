provider myprov { probe start(int, char *); probe done__now(int) : (int); };
