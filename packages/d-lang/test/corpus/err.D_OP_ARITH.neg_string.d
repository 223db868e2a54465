BEGIN { trace(-"a"); }
