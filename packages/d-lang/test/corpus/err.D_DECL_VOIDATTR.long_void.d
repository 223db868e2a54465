long void x;
