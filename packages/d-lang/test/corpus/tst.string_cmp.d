BEGIN { s = "abc"; trace(s == "abc"); trace(s != execname); trace(s < "b"); trace(s >= "a"); }
