BEGIN { trace(regs[1000]); }
