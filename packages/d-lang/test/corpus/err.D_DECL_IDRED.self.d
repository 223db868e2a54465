self int t; self int t;
