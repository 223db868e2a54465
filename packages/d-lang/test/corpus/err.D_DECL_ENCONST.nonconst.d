enum e { A = timestamp };
