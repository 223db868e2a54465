BEGIN { trace(bcopy(0, 0, 0)); }
