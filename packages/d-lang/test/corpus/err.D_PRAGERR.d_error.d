#pragma D error stop here
BEGIN {}
