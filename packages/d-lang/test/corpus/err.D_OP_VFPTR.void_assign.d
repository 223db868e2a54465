BEGIN { x = bcopy(0, 0, 0); }
