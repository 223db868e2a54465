typedef int f_t(int); BEGIN { trace(*(f_t *)arg0); }
