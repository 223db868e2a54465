#pragma D depends_on thing foo
BEGIN {}
