#pragma D depends_on module kernel
BEGIN {}
