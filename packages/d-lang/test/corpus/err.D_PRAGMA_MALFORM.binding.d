#pragma D binding
BEGIN {}
