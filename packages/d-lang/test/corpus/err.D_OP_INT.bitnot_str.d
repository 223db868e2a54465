BEGIN { trace(~"a"); }
