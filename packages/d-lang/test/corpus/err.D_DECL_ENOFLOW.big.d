enum e { A = 0x80000000 };
