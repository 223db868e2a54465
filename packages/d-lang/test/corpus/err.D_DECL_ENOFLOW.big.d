enum e { A = 0x7fffffff, B };
