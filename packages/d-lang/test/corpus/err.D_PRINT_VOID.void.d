BEGIN { print(bcopy(0, 0, 0)); }
