#pragma D attributes Bogus/Stable/Common foo
BEGIN {}
