#line 100 "foo.d"
BEGIN { trace(1); }
