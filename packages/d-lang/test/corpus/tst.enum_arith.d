enum e { A = 1 << 2, B = A | 1, C }; BEGIN { trace(C); trace(sizeof (enum e)); }
