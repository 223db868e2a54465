BEGIN { 5++; }
