BEGIN { trace("abc
def"); }
